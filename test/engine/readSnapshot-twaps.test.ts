// The running TWAPs and the balances of a snapshot follow the venue cycle after cycle, also while the info
// client hands out the same (kept) answer: what is made of an answer is kept per answer object, and a new
// answer (a TWAP placed or ended, a fill) is read afresh.
import { afterEach, describe, expect, it } from "vitest";
import { readSnapshot } from "../../src/engine/readSnapshot.js";
import { createSimulator, type Simulator } from "../../src/simulator/index.js";
import { InfoClient } from "../../src/venue/info/client.js";
import { HttpTransport } from "../../src/venue/transport/http.js";
import { ADDR, HYPE_ASSET, testScenario } from "../simulator/fixtures.js";

const HOUR = 3_600_000;

describe("readSnapshot: running TWAPs from a repeating history", () => {
  let sim: Simulator | undefined;
  afterEach(async () => sim?.stop());

  it("lists a TWAP while it runs and drops it when it ends, across repeated identical answers", async () => {
    sim = createSimulator({
      scenario: testScenario({ balances: { [ADDR.trader]: { USDC: "100000", HYPE: "1000" } } }),
      rateLimit: false,
    });
    const venue = sim;
    const transport = new HttpTransport({
      endpoints: {
        info: "http://venue.invalid/info",
        exchange: "http://venue.invalid/exchange",
        explorer: "http://venue.invalid/explorer",
      },
      wire: venue.wire,
      budget: null,
    });
    const info = new InfoClient(transport);
    const snapshot = () =>
      readSnapshot(info, {
        account: ADDR.trader,
        network: "testnet",
        rules: {} as never,
        parts: new Set(["twaps"]),
        facts: { multiSig: null },
        now: venue.now(),
      });
    const running = async () => (await snapshot()).twaps.map((t) => [t.twapId, t.side]);
    const hype = async () => (await snapshot()).balances.get("HYPE")!.total.toFixed();
    expect(await hype()).toBe("1000");
    expect(await hype()).toBe("1000");
    const place = (isBuy: boolean, size: string, minutes: number) => {
      const r = venue.core.twaps.place(
        ADDR.trader,
        { asset: HYPE_ASSET, isBuy, size, reduceOnly: false, minutes, randomize: false, hasDetails: false },
        "0x01",
      );
      if (!r.ok) throw new Error(r.error);
      return r.twap.id;
    };
    const first = place(false, "10", 60);
    for (let i = 0; i < 3; i++) {
      expect(await running()).toEqual([[first, "sell"]]);
      venue.advance(60_000);
    }
    const second = place(true, "5", 30);
    expect(await running()).toEqual([
      [first, "sell"],
      [second, "buy"],
    ]);
    venue.advance(HOUR);
    // Both ended: the same answer text again and again lists none.
    for (let i = 0; i < 3; i++) {
      expect(await running()).toEqual([]);
      venue.advance(60_000);
    }
    // The balances follow the fills (10 HYPE sold, 5 bought less its 0.1 % fee in HYPE), also once their
    // answer repeats.
    for (let i = 0; i < 3; i++) expect(await hype()).toBe("994.995");
  });
});
