// spotMetaAndAssetCtxs answers [metadata, contexts]: the metadata repeats from read to read (on mainnet
// the larger part by far) while the contexts change every time. A part whose text repeats the last
// accepted answer's is handed out as the value made of it then (frozen); a changed part is validated as
// ever, and a broken part refuses the whole answer with the usual path.
import { afterEach, describe, expect, it } from "vitest";
import { BadResponseError } from "../../../src/lib/errors.js";
import { InfoClient } from "../../../src/venue/info/client.js";
import { spotMetaAndAssetCtxsMethod } from "../../../src/venue/info/methods/spotMetaAndAssetCtxs.js";
import { topLevelParts } from "../../../src/venue/info/query.js";
import { resolveEndpoints } from "../../../src/venue/networks.js";
import { HttpTransport } from "../../../src/venue/transport/http.js";
import { startHttpServer, type TestHttpServer } from "../../helpers/httpServer.js";
import * as fx from "./fixtures.js";

describe("topLevelParts", () => {
  it("splits a JSON array into its elements' texts, whatever the strings and nesting hold", () => {
    expect(topLevelParts('[1,"a,]",{"x":[1,2],"y":"}"}]')).toEqual(["1", '"a,]"', '{"x":[1,2],"y":"}"}']);
    expect(topLevelParts(' [ {"s":"q\\"],["} , [[],[]] ] \n')).toEqual([' {"s":"q\\"],["} ', " [[],[]] "]);
    expect(topLevelParts("[]")).toEqual([]);
    expect(topLevelParts("[ ]")).toEqual([]);
    expect(topLevelParts('{"a":[1,2]}')).toBeUndefined();
    expect(topLevelParts("[1,2] x")).toBeUndefined();
    expect(topLevelParts("[1,2")).toBeUndefined();
  });

  it("is what JSON.parse sees: each part's text parses to that element", () => {
    const value = [{ a: "x,]}", b: [1, { c: null }] }, '\\"[', [], 12345678901234567890n.toString(), -1.5e-7];
    const text = JSON.stringify(value);
    expect(topLevelParts(text)?.map((p) => JSON.parse(p))).toEqual(value);
  });
});

describe("spotMetaAndAssetCtxs read in parts", () => {
  let server: TestHttpServer | undefined;
  let transport: HttpTransport | undefined;
  afterEach(async () => {
    await transport?.close();
    await server?.close();
  });

  function client(url: string): InfoClient {
    transport = new HttpTransport({
      endpoints: resolveEndpoints("testnet", url),
      retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 2 },
      budget: null,
    });
    return new InfoClient(transport);
  }

  const ctx = (markPx: string) => ({ ...fx.spotAssetCtx(), markPx });

  it("declares the tuple's own items as its parts", () => {
    const items = (spotMetaAndAssetCtxsMethod.response as unknown as { def: { items: unknown[] } }).def.items;
    expect(spotMetaAndAssetCtxsMethod.parts).toEqual(items);
    expect(spotMetaAndAssetCtxsMethod.parts?.every((p, i) => p === items[i])).toBe(true);
  });

  it("keeps the repeated metadata, reads the changed contexts, and follows a changed metadata", async () => {
    const changedMeta = fx.spotMeta();
    changedMeta.tokens[1]!.szDecimals += 1;
    const answers = [
      [fx.spotMeta(), [ctx("10.0")]],
      [fx.spotMeta(), [ctx("10.5")]],
      [fx.spotMeta(), [ctx("11.0")]],
      [changedMeta, [ctx("11.0")]],
    ];
    server = await startHttpServer((_req, i) => ({ json: answers[Math.min(i, answers.length - 1)] }));
    const info = client(server.url);
    const reads = [];
    for (let i = 0; i < answers.length; i++) reads.push(await info.spotMetaAndAssetCtxs());
    expect(server.requests).toHaveLength(4);
    expect(reads.map((r) => r[1][0]!.markPx)).toEqual(["10.0", "10.5", "11.0", "11.0"]);
    expect(reads.map((r) => r[0])).toEqual([fx.spotMeta(), fx.spotMeta(), fx.spotMeta(), changedMeta]);
    // The repeated metadata is one frozen value; the changed one is new, the contexts new each time.
    expect(reads[1]![0]).toBe(reads[0]![0]);
    expect(reads[2]![0]).toBe(reads[0]![0]);
    expect(Object.isFrozen(reads[1]![0])).toBe(true);
    expect(reads[3]![0]).not.toBe(reads[0]![0]);
    expect(reads[3]![0].tokens[1]!.szDecimals).toBe(fx.spotMeta().tokens[1]!.szDecimals + 1);
    expect(reads[2]![1]).not.toBe(reads[1]![1]);
  });

  it("refuses a broken part with the usual path, and the next good answer is read as sent", async () => {
    const answers = [
      [fx.spotMeta(), [ctx("10.0")]],
      [fx.spotMeta(), [ctx("abc")]],
      [fx.spotMeta(), [ctx("10.0"), ctx("1e5")]],
      [fx.spotMeta()],
      [fx.spotMeta(), [ctx("12.0")]],
    ];
    server = await startHttpServer((_req, i) => ({ json: answers[i] }));
    const info = client(server.url);
    await info.spotMetaAndAssetCtxs();
    const paths = async () => {
      const err = await info.spotMetaAndAssetCtxs().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadResponseError);
      return (err as BadResponseError).issues.map((i) => i.path);
    };
    expect(await paths()).toEqual(["1.0.markPx"]);
    expect(await paths()).toEqual(["1.1.markPx"]);
    expect(await paths()).toEqual([""]);
    const good = await info.spotMetaAndAssetCtxs();
    expect(good).toEqual([fx.spotMeta(), [ctx("12.0")]]);
  });
});
