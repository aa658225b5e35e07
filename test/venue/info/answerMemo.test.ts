// An answer whose text repeats is not parsed and validated again: the info client hands out the value it
// made of the same text before (frozen). The request is still sent every time, a changed answer is
// validated as ever (a broken one is refused, never masked by the kept one), and queries with other
// parameters keep their own answers. The request body built for the same parameters is kept too (sent byte
// for byte again, never for parameters the schema refuses).
import { afterEach, describe, expect, it } from "vitest";
import { BadResponseError } from "../../../src/lib/errors.js";
import { InfoClient } from "../../../src/venue/info/client.js";
import { resolveEndpoints } from "../../../src/venue/networks.js";
import { HttpTransport } from "../../../src/venue/transport/http.js";
import { startHttpServer, type TestHttpServer } from "../../helpers/httpServer.js";

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
});
