// A token deployed later under the name of another (spot token names need not be unique on the venue:
// hummingbot's Hyperliquid spot connector, PR #7202). A tokens trial: with a second "UBTC" and a balance
// of 7 of it listed after the real 0.1, the snapshot took the lookalike's 7 for UBTC, valued it at UBTC's
// mid and a rebalancer sold real UBTC against it. A name means the token its pairs use (the lowest index):
// the balance of another token of that name is not that token's.
import { afterEach, describe, expect, it } from "vitest";
import { collectStatus } from "../../src/cli/status.js";
import { readSnapshot } from "../../src/engine/readSnapshot.js";
import { createSimulator, type Simulator } from "../../src/simulator/index.js";
import { InfoClient } from "../../src/venue/info/client.js";
import { HttpTransport, type Wire } from "../../src/venue/transport/http.js";
import { ADDR, testScenario } from "../simulator/fixtures.js";

let sim: Simulator | undefined;
afterEach(async () => sim?.stop());

describe("a lookalike token of the same name", () => {
  it("does not lend its balance to the token the name trades as", async () => {
    sim = createSimulator({
      scenario: testScenario({ balances: { [ADDR.trader]: { USDC: "1000", HYPE: "3" } } }),
      rateLimit: false,
    });
    const venue = sim;
    // The venue's answers with a second token named HYPE (a higher index: deployed later) and 7 of it.
    const wire: Wire = async (request) => {
      const answer = await venue.wire(request);
      const type = request.endpoint === "info" ? (JSON.parse(request.bodyText) as { type: string }).type : "";
      if (type !== "spotMeta" && type !== "spotMetaAndAssetCtxs" && type !== "spotClearinghouseState")
        return answer;
      const body = JSON.parse(answer.text) as unknown;
      const LOOKALIKE = 9_999;
      if (type === "spotClearinghouseState") {
        const state = body as { balances: Array<Record<string, unknown>> };
        state.balances.push({ coin: "HYPE", token: LOOKALIKE, total: "7.0", hold: "0.0", entryNtl: "0.0" });
      } else {
        const meta = (type === "spotMeta" ? body : (body as unknown[])[0]) as {
          tokens: Array<Record<string, unknown>>;
        };
        const hype = meta.tokens.find((t) => t.name === "HYPE")!;
        meta.tokens.push({ ...hype, index: LOOKALIKE, tokenId: `0x${"ab".repeat(16)}`, isCanonical: false });
      }
      return { ...answer, text: JSON.stringify(body) };
    };
    const info = new InfoClient(
      new HttpTransport({
        endpoints: {
          info: "http://venue.invalid/info",
          exchange: "http://venue.invalid/exchange",
          explorer: "http://venue.invalid/explorer",
        },
        wire,
        budget: null,
      }),
    );
    for (const parts of [new Set<never>(), new Set(["twaps"] as const)]) {
      const snapshot = await readSnapshot(info, {
        account: ADDR.trader,
        network: "testnet",
        rules: {} as never,
        parts: parts as never,
        facts: { multiSig: null },
        now: venue.now(),
      });
      const hype = snapshot.balances.get("HYPE")!;
      expect(hype.total.toFixed()).toBe("3");
      expect(hype.token).toBe(snapshot.tokens.get("HYPE")!.index);
      expect(hype.token).not.toBe(9_999);
    }
    // `hlbot status` shows the lookalike, named as another token, with no value; the account's value is
    // that of the real 3 HYPE and the USDC.
    const status = await collectStatus(info, ADDR.trader, venue.now(), "testnet");
    const shown = status.balances!.filter((b) => b.coin.startsWith("HYPE"));
    expect(shown.map((b) => [b.coin, b.total, b.usd === null])).toEqual([
      ["HYPE", "3.0", false],
      ["HYPE (token 9999, another token of this name)", "7.0", true],
    ]);
    const mid = Number((await info.allMids({}))["@107"]);
    expect(Number(status.totalUsd)).toBeCloseTo(1000 + 3 * mid, 2);
  });
});
