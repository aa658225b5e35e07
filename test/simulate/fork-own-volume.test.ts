// A fork trial: an account whose own TWAP bought 60,918 USDC of a thin pair (others trade 200,000 a day)
// was forked with the pair's 24-h volume as the venue states it, its own fills included: the pair became
// "medium", and the bot's 5,000-USDC buy cost 6 bps instead of 32. Its own TWAP fills are taken out.
import { afterAll, beforeAll, expect, it } from "vitest";
import { forkAccount } from "../../src/simulate/fork.js";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { InfoClient } from "../../src/venue/info/client.js";
import { resolveEndpoints } from "../../src/venue/networks.js";
import { HttpTransport } from "../../src/venue/transport/http.js";
import { ADDR, testScenario } from "../simulator/fixtures.js";

let network: Simulator & { url: string };
let transport: HttpTransport;

beforeAll(async () => {
  network = (await startSimulator({
    scenario: testScenario({
      tokens: [
        { name: "USDC", index: 0, szDecimals: 8, weiDecimals: 8 },
        { name: "PURR", index: 1, szDecimals: 0, weiDecimals: 5 },
      ],
      pairs: [{ index: 0, base: "PURR", quote: "USDC", dayNtlVlm: "200000" }],
      prices: { "PURR/USDC": { start: "0.2", volatility: 0 } },
      accounts: [{ address: ADDR.trader, label: "someone" }],
      balances: { [ADDR.trader]: { USDC: "120000" } },
      twaps: [
        {
          user: ADDR.trader,
          pair: "PURR/USDC",
          side: "buy",
          size: "300000",
          minutes: 10,
          startedAgo: "0s",
          id: 7,
        },
      ],
    }),
    rateLimit: false,
  })) as Simulator & { url: string };
  network.advance(30 * 60_000);
  transport = new HttpTransport({ endpoints: resolveEndpoints("testnet", network.url), budget: null });
});
afterAll(async () => {
  await transport.close();
  await network.stop();
});

it("sizes a pair's book from the others' volume, not the account's own TWAP fills", async () => {
  const fork = await forkAccount(new InfoClient(transport), ADDR.trader, {
    network: "testnet",
    now: () => network.now(),
  });
  const purr = (
    fork.scenario as { pairs: Array<{ name: string; dayNtlVlm: string; book: { class: string } }> }
  ).pairs[0]!;
  // The venue's volume grew by what the account bought (about 60,000 USDC): taken out again.
  expect(Number(purr.dayNtlVlm)).toBeGreaterThan(199_000);
  expect(Number(purr.dayNtlVlm)).toBeLessThan(201_000);
  expect(purr.book.class).toBe("thin");
  expect(fork.notes).toContainEqual(
    expect.stringMatching(
      /^PURR\/USDC: the venue's 24-h volume of 2\d{5}\.\d\d includes \d{5}\.\d\d of this account's own TWAP fills/,
    ),
  );
});
