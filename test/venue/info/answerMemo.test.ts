// An answer whose text repeats is not parsed and validated again: the info client hands out the value it
// made of the same text before (frozen). The request is still sent every time, a changed answer is
// validated as ever (a broken one is refused, never masked by the kept one), and queries with other
// parameters keep their own answers. The request body built for the same parameters is kept too (sent byte
// for byte again, never for parameters the schema refuses). A tuple answer (spotMetaAndAssetCtxs) is kept
// part by part.
import { afterEach, describe, expect, it } from "vitest";
import { BadResponseError } from "../../../src/lib/errors.js";
import { InfoClient } from "../../../src/venue/info/client.js";
import { spotMetaAndAssetCtxsMethod } from "../../../src/venue/info/methods/spotMetaAndAssetCtxs.js";
import { arrayParts } from "../../../src/venue/info/query.js";
import { resolveEndpoints } from "../../../src/venue/networks.js";
import { HttpTransport } from "../../../src/venue/transport/http.js";
import { startHttpServer, type TestHttpServer } from "../../helpers/httpServer.js";
import * as fx from "./fixtures.js";

const ALICE = "0x1111111111111111111111111111111111111111";
const BOB = "0x2222222222222222222222222222222222222222";
const summary = (delegated: string) => ({
  delegated,
  undelegated: "0.0",
  totalPendingWithdrawal: "0.0",
  nPendingWithdrawals: 0,
});

describe("repeated info answers", () => {
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

  it("hands out the same frozen value for the same text, still asking the venue each time", async () => {
    server = await startHttpServer([{ json: summary("1.0") }]);
    const info = client(server.url);
    const first = await info.delegatorSummary({ user: ALICE });
    const second = await info.delegatorSummary({ user: ALICE });
    const third = await info.delegatorSummary({ user: ALICE });
    const fourth = await info.delegatorSummary({ user: ALICE });
    expect(server.requests).toHaveLength(4);
    expect(first).toEqual(summary("1.0"));
    // Kept once the text came twice in a row; the value given out from then on is one frozen object.
    expect(third).toBe(second);
    expect(fourth).toBe(second);
    expect(Object.isFrozen(third)).toBe(true);
    expect(() => {
      (third as { delegated: string }).delegated = "9.0";
    }).toThrow(TypeError);
  });

  it("keeps a changed answer of a query whose answers repeat from its first reading", async () => {
    // A TWAP history or the validator list: the same for hours, then a change.
    const texts = ["1.0", "1.0", "1.0", "2.0", "2.0", "3.0"];
    server = await startHttpServer((_req, i) => ({ json: summary(texts[i]!) }));
    const info = client(server.url);
    const reads = [];
    for (let i = 0; i < texts.length; i++) reads.push(await info.delegatorSummary({ user: ALICE }));
    expect(reads.map((r) => r.delegated)).toEqual(texts);
    expect(reads[2]).toBe(reads[1]);
    // The first reading of the changed text is kept (frozen before it is handed out) and handed out again.
    expect(Object.isFrozen(reads[3])).toBe(true);
    expect(reads[4]).toBe(reads[3]);
    expect(reads[5]).not.toBe(reads[4]);
    expect(server.requests).toHaveLength(texts.length);
  });

  it("does not keep the answers of a query that change every time (each is read as sent)", async () => {
    server = await startHttpServer((_req, i) => ({ json: { "@107": `${20 + i}.0` } }));
    const info = client(server.url);
    const reads = [];
    for (let i = 0; i < 3; i++) reads.push(await info.allMids());
    expect(reads.map((r) => r["@107"])).toEqual(["20.0", "21.0", "22.0"]);
    expect(reads.some((r) => Object.isFrozen(r))).toBe(false);
  });

  it("validates a changed answer again: a broken one is refused, a new one is read as sent", async () => {
    server = await startHttpServer((_req, i) =>
      i < 3 ? { json: summary("1.0") } : i === 3 ? { json: { delegated: 12 } } : { json: summary("2.5") },
    );
    const info = client(server.url);
    for (let i = 0; i < 3; i++) await info.delegatorSummary({ user: ALICE });
    const err = await info.delegatorSummary({ user: ALICE }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadResponseError);
    expect((await info.delegatorSummary({ user: ALICE })).delegated).toBe("2.5");
  });

  it("does not keep an answer beyond the size bound (it is parsed and validated each time)", async () => {
    // ~600 KB of balances: more than the memo keeps, so a long download never piles up pages.
    const balances = Array.from({ length: 6000 }, (_, i) => ({
      coin: `T${i}`,
      token: i,
      total: "123456.12345678",
      hold: "0.0",
      entryNtl: "98765.4321",
    }));
    server = await startHttpServer([{ json: { balances } }]);
    expect(JSON.stringify({ balances }).length).toBeGreaterThan(512 * 1024);
    const info = client(server.url);
    const reads = [];
    for (let i = 0; i < 3; i++) reads.push(await info.spotClearinghouseState({ user: ALICE }));
    expect(reads[2]!.balances).toHaveLength(6000);
    expect(reads[2]).not.toBe(reads[1]);
    expect(Object.isFrozen(reads[2])).toBe(false);
  });

  it("sends the body it built for the same parameters again, byte for byte; other parameters build their own", async () => {
    const carol = "0xabcdefabcdefabcdefabcdefabcdefabcdef0123";
    server = await startHttpServer((req) => ({ json: summary(req.body.includes(carol) ? "1.0" : "7.0") }));
    const info = client(server.url);
    const mixed = `0x${carol.slice(2).toUpperCase()}` as `0x${string}`;
    for (let i = 0; i < 2; i++) {
      expect((await info.delegatorSummary({ user: mixed })).delegated).toBe("1.0");
      expect((await info.delegatorSummary({ user: BOB })).delegated).toBe("7.0");
    }
    // The address is lower-cased when the body is built, and the kept body is the built one.
    const body = (user: string) => `{"type":"delegatorSummary","user":"${user}"}`;
    expect(server.requests.map((r) => r.body)).toEqual([body(carol), body(BOB), body(carol), body(BOB)]);
    // Parameters the request schema refuses are refused every time, before any request.
    for (let i = 0; i < 2; i++)
      await expect(info.delegatorSummary({ user: "0x12" as `0x${string}` })).rejects.toThrow(/user/);
    expect(server.requests).toHaveLength(4);
  });

  it("keeps answers per query and parameters", async () => {
    server = await startHttpServer((req) => {
      const user = (req.json as { user: string }).user;
      return { json: summary(user === ALICE ? "1.0" : "7.0") };
    });
    const info = client(server.url);
    for (let i = 0; i < 3; i++) {
      expect((await info.delegatorSummary({ user: ALICE })).delegated).toBe("1.0");
      expect((await info.delegatorSummary({ user: BOB })).delegated).toBe("7.0");
    }
  });

  // spotMetaAndAssetCtxs answers [metadata, contexts]: the metadata repeats from read to read (on
  // mainnet the larger part by far) while the contexts change every time. A part whose text repeats the
  // last accepted answer's is handed out as the value made of it then (frozen); a changed part is
  // validated as ever, and a broken part refuses the whole answer with the usual path.
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
    // Frozen from the first read on: the object handed out then is the one handed out again.
    expect(Object.isFrozen(reads[0]![0])).toBe(true);
    expect(Object.isFrozen(reads[0]![1])).toBe(true);
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

  // After an accepted answer, a new text is split and only its changed parts are parsed: text that is not
  // JSON, or not an array of the parts' count, must still be refused as the whole text would be.
  it("refuses text that is not JSON or not the tuple, and reads changed parts exactly as a whole parse", async () => {
    const meta = JSON.stringify(fx.spotMeta());
    const ctxs = (px: string) => JSON.stringify([{ ...fx.spotAssetCtx(), markPx: px }]);
    const texts = [
      `[${meta},${ctxs("10.0")}]`,
      `[${meta},${ctxs("10.5")}`, // cut short: no closing bracket
      `[${meta},${ctxs("10.5").slice(0, -3)}]`, // a part that is not JSON
      `[${meta},${ctxs("10.5")},${ctxs("10.5")}]`, // three parts
      `[${meta}]`,
      // Control characters around the array are not JSON whitespace.
      `\u0000\u000b[${meta},${ctxs("10.5")}]\u0000`,
      `[${meta},${ctxs("10.5")}]\u001f`,
      // A changed part nested 512 deep makes the answer 513 deep.
      `[${meta},${"[".repeat(512)}${"]".repeat(512)}]`,
      `[${meta},  ${ctxs("11.0")} ]`,
    ];
    server = await startHttpServer((_req, i) => ({
      text: texts[i]!,
      headers: { "content-type": "application/json" },
    }));
    const info = client(server.url);
    const first = await info.spotMetaAndAssetCtxs();
    const refusal = async () => {
      const err = await info.spotMetaAndAssetCtxs().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadResponseError);
      return (err as BadResponseError).message;
    };
    // One attempt per read (retry.attempts 1): each refusal is one text of the list.
    expect(await refusal()).toMatch(/response is not JSON/);
    expect(await refusal()).toMatch(/response is not JSON/);
    expect(await refusal()).toMatch(/unexpected spotMetaAndAssetCtxs response/);
    expect(await refusal()).toMatch(/unexpected spotMetaAndAssetCtxs response/);
    expect(await refusal()).toMatch(/response is not JSON/);
    expect(await refusal()).toMatch(/response is not JSON/);
    expect(await refusal()).toMatch(/nested deeper than 512 levels/);
    const last = await info.spotMetaAndAssetCtxs();
    expect(last).toEqual([fx.spotMeta(), [{ ...fx.spotAssetCtx(), markPx: "11.0" }]]);
    // The metadata's text repeats the accepted answer's: the value made of it then.
    expect(last[0]).toBe(first[0]);
    expect(server.requests).toHaveLength(texts.length);
  });
});

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
