// spotMetaAndAssetCtxs answers [metadata, contexts]: the metadata repeats from read to read (on mainnet
// the larger part by far) while the contexts change every time. A part whose text repeats the last
// accepted answer's is handed out as the value made of it then (frozen); a changed part is validated as
// ever, and a broken part refuses the whole answer with the usual path.
import { afterEach, describe, expect, it } from "vitest";
import { BadResponseError } from "../../../src/lib/errors.js";
import { InfoClient } from "../../../src/venue/info/client.js";
import { spotMetaAndAssetCtxsMethod } from "../../../src/venue/info/methods/spotMetaAndAssetCtxs.js";
import { arrayParts } from "../../../src/venue/info/query.js";
import { resolveEndpoints } from "../../../src/venue/networks.js";
import { HttpTransport } from "../../../src/venue/transport/http.js";
import { startHttpServer, type TestHttpServer } from "../../helpers/httpServer.js";
import * as fx from "./fixtures.js";

describe("arrayParts", () => {
  it("splits a JSON array into its elements' texts, whatever the strings and nesting hold", () => {
    expect(arrayParts('[1,"a,]",{"x":[1,2],"y":"}"}]', 3)).toEqual(["1", '"a,]"', '{"x":[1,2],"y":"}"}']);
    expect(arrayParts(' [ {"s":"q\\"],["} , [[],[]] ] \n', 2)).toEqual([' {"s":"q\\"],["} ', " [[],[]] "]);
    expect(arrayParts("[]", 0)).toEqual([]);
    expect(arrayParts("[ 7 ]", 1)).toEqual([" 7 "]);
    expect(arrayParts('{"a":[1,2]}', 1)).toBeUndefined();
  });

  it("is what JSON.parse sees: each part's text parses to that element", () => {
    const value = [{ a: "x,]}", b: [1, { c: null }] }, '\\"[', [], "12345678901234567890", -1.5e-7];
    const text = JSON.stringify(value);
    expect(arrayParts(text, value.length)?.map((p) => JSON.parse(p))).toEqual(value);
  });

  it("gives the same parts with or without the texts of an earlier array sharing some elements", async () => {
    const fc = await import("fast-check");
    const value = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(
        fc.array(value, { minLength: 1, maxLength: 5 }),
        fc.array(value, { maxLength: 5 }),
        fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
        (now, before, keep) => {
          // The earlier array shares the elements `keep` marks (same text), the others differ or are absent.
          const earlier = now.map((v, i) => (keep[i] ? v : (before[i] ?? v)));
          const known = arrayParts(JSON.stringify(earlier), earlier.length);
          const text = JSON.stringify(now);
          const parts = arrayParts(text, now.length, known);
          expect(parts).toEqual(arrayParts(text, now.length));
          expect(parts?.map((p) => JSON.parse(p))).toEqual(JSON.parse(text));
        },
      ),
      { numRuns: 400 },
    );
  });

  it("takes a known element by its text only when the comma ending it follows", () => {
    // The known "1" is a prefix of 12, but no comma follows it there: 12 is scanned as a new element.
    expect(arrayParts("[12,3]", 2, ["1"])).toEqual(["12", "3"]);
    expect(arrayParts('[{"a":1},{"b":2}]', 2, ['{"a":1}'])).toEqual(['{"a":1}', '{"b":2}']);
    expect(arrayParts('[{"a":1,"c":2},{"b":2}]', 2, ['{"a":1}'])).toEqual(['{"a":1,"c":2}', '{"b":2}']);
    expect(arrayParts('["x,y",1]', 2, ['"x"'])).toEqual(['"x,y"', "1"]);
    expect(arrayParts("[ [1] , 2]", 2, [" [1] "])).toEqual([" [1] ", " 2"]);
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
