// The simulator keeps its own reading of the venue's rules (ARCHITECTURE.md: a test double that shares
// the bot's beliefs could not show them wrong), so the same fact is written twice: in the simulator's
// scenario defaults (and the bundled demo scenario) and in the bot's venue/constants.ts. This lists each
// pair; a difference fails here unless it is one stated on purpose (an architecture review found the
// copies unchecked, and one of them different).
import { expect, it } from "vitest";
import { DEFAULT_USER_SIGNED_GRACE_MS } from "../../src/engine/reconcile.js";
import { DEMO_SCENARIO_PATH, loadScenarioFile, parseScenarioYaml } from "../../src/simulator/scenario.js";
import {
  DELEGATION_LOCK_MS,
  NONCE_WINDOW_FUTURE_MS,
  NONCE_WINDOW_PAST_MS,
  TWAP_MAX_MINUTES_DEFAULT,
  TWAP_MIN_MINUTES,
  TWAP_MIN_ORDER_VALUE_DEFAULT,
  TWAP_SLICE_SECONDS,
  UNSTAKING_QUEUE_MS,
} from "../../src/venue/constants.js";
import { DEFAULT_BUDGET_CAPACITY } from "../../src/venue/transport/budget.js";

const MINIMAL = `
tokens:
  - { name: USDC, index: 0, szDecimals: 8, weiDecimals: 8 }
  - { name: HYPE, index: 150, szDecimals: 2, weiDecimals: 8 }
pairs:
  - { index: 107, base: HYPE, quote: USDC }
`;

it("the simulator's defaults and the demo scenario state the venue facts the bot believes", () => {
  for (const { settings } of [parseScenarioYaml(MINIMAL), loadScenarioFile(DEMO_SCENARIO_PATH)]) {
    expect({
      slice: settings.twapSliceInterval,
      minOrder: settings.twapMinOrderValue.toString(),
      minMinutes: settings.twapMinMinutes,
      maxMinutes: settings.twapMaxMinutes,
      lock: settings.delegationLock,
      queue: settings.withdrawalDelay,
      weight: settings.rateLimit === false ? undefined : settings.rateLimit.capacity,
      nonceAhead: settings.nonceWindowFuture,
    }).toEqual({
      slice: TWAP_SLICE_SECONDS * 1000,
      minOrder: TWAP_MIN_ORDER_VALUE_DEFAULT,
      minMinutes: TWAP_MIN_MINUTES,
      maxMinutes: TWAP_MAX_MINUTES_DEFAULT,
      lock: DELEGATION_LOCK_MS,
      queue: UNSTAKING_QUEUE_MS.mainnet,
      weight: DEFAULT_BUDGET_CAPACITY,
      nonceAhead: NONCE_WINDOW_FUTURE_MS,
    });
    // On purpose: the docs read both "(T − 2 days, …)" and "within 1 day". The simulator takes the
    // current docs' day; the bot waits for the longer bound before calling a lost staking action absent
    // (the safe side: it never acts twice where the venue's window is either). A bot grace shorter than
    // the simulator's window would let a simulation land a held copy after the bot gave up on it.
    expect(settings.nonceWindowPast).toBe(24 * 60 * 60_000);
    expect(DEFAULT_USER_SIGNED_GRACE_MS).toBe(NONCE_WINDOW_PAST_MS);
    expect(DEFAULT_USER_SIGNED_GRACE_MS).toBeGreaterThanOrEqual(settings.nonceWindowPast);
  }
});
