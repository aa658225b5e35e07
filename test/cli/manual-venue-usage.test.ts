// A manual live action counts the daily limits as a bot cycle does: the larger of the journal's usage
// and what the venue's own history shows for the last 24 h (twapHistory for maxDailyNotionalUsd,
// delegatorHistory for maxStakeMovePerDay), so another instance of the account (its own state folder)
// or a move by hand is counted too; and while that history cannot be read, an action it governs is
// refused (failing closed). The CLI in-process against the embedded simulator (real clock), through a
// rewriting proxy on 127.0.0.1 that can break one answer, with real bot configs and state folders.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Wallet } from "ethers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { main } from "../../src/cli/main.js";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { demoWithHypeAt } from "../helpers/scenario.js";
import { startVenueProxy, type VenueProxy } from "../helpers/venueProxy.js";

let sim: Simulator & { url: string };
let proxy: VenueProxy;
let dir: string;
let wallet: ReturnType<typeof Wallet.createRandom>;
let address: string;

beforeEach(async () => {
  // HYPE at 40 since before the start: a price set by hand now would be a 60% day move the price
  // checks refuse (test/helpers/scenario.ts).
  sim = await startSimulator({ clock: "real", rateLimit: false, scenario: demoWithHypeAt("40") });
  proxy = await startVenueProxy(sim.url);
  dir = mkdtempSync(join(tmpdir(), "hlbot-manual-usage-"));
  wallet = Wallet.createRandom();
  address = wallet.address.toLowerCase();
  sim.fund(address, "HYPE", "100");
  sim.fund(address, "USDC", "5000");
});
afterEach(async () => {
  await proxy.close();
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A bot config of the account with its own state folder (another instance: another file and folder). */
function writeConfig(
  name: string,
  state: string,
  limits = { maxOrderUsd: 1000, maxDailyNotionalUsd: 1000, maxStakeMovePerDay: 5 },
): string {
  writeFileSync(
    join(dir, "noop.yaml"),
    stringify({
      name: "noop",
      kind: "link-staking",
      schedule: "0 0 * * *",
      enabled: false,
      params: { counterparty: "0x3333333333333333333333333333333333333333" },
    }),
  );
  const file = join(dir, name);
  writeFileSync(
    file,
    stringify({
      network: "testnet",
      baseUrl: proxy.url,
      mode: "live",
      strategies: ["noop.yaml"],
      state,
      limits,
      log: { level: "warn", format: "json" },
    }),
  );
  return file;
}

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, {
    stdout: (t) => void out.push(t),
    stderr: (t) => void err.push(t),
    env: { HLBOT_PRIVATE_KEY: wallet.privateKey },
    isTTY: false,
  });
  return { code, stdout: out.join(""), stderr: err.join("") };
}

/** The decisions journaled in a state folder. */
function decisions(state: string) {
  const db = new Database(join(dir, state, "hlbot.db"), { readonly: true });
  try {
    return db
      .prepare("SELECT kind, guard, guard_reason AS guardReason FROM decisions ORDER BY id")
      .all() as Array<{ kind: string; guard: string; guardReason: string | null }>;
  } finally {
    db.close();
  }
}

const ledger = (kind: string) => sim.ledger().filter((e) => e.kind === kind && e.user === address);
const twap = (size: string, config: string) => [
  "twap",
  "buy",
  "--coin",
  "HYPE",
  "--size",
  size,
  "--minutes",
  "5",
  "--live",
  "--config",
  config,
];

describe("manual live actions count the venue's 24-h usage, as a cycle does", () => {
  it("a TWAP is refused when the venue shows another instance's TWAPs using the day's maxDailyNotionalUsd", async () => {
    const other = writeConfig("other.yaml", "./state-other");
    const mine = writeConfig("bot.yaml", "./state");
    // 20 HYPE at 40: 800 of the day's 1,000 USD, placed from another state folder.
    const first = await cli(twap("20", other));
    expect(first.code, first.stderr).toBe(0);
    expect(ledger("twapPlaced")).toHaveLength(1);

    // Another 800 USD would trade 1,600 in a day: refused, named as the daily limit, nothing sent.
    const second = await cli(twap("20", mine));
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(
      /refused, nothing sent: above maxDailyNotionalUsd 1000 USD for the last 24 h \(8\d\d\.\d\d USD used, \d+\.\d\d USD left today\); this order is ≈800\.00 USD; a manual order is never resized: give a smaller --size/,
    );
    expect(second.stderr).not.toMatch(/maxOrderUsd/);
    expect(ledger("twapPlaced")).toHaveLength(1);
    expect(decisions("state").map((d) => [d.kind, d.guard])).toEqual([["twapOrder", "blocked"]]);

    // What is left of the day still goes: 3 HYPE (120 USD) keeps the day under 1,000 USD.
    const small = await cli(twap("3", mine));
    expect(small.code, small.stderr).toBe(0);
    expect(ledger("twapPlaced")).toHaveLength(2);
    // Then what is left (under 100 USD) is below any TWAP: refused in a manual order's words, not the
    // strategies' ("reduced to … the slot stays due": a newcomer's trial).
    const rest = await cli(twap("3", mine));
    expect(rest.code).toBe(1);
    expect(rest.stderr).toMatch(
      /refused, nothing sent: above maxDailyNotionalUsd 1000 USD for the last 24 h \(9\d\d\.\d\d USD used, \d+\.\d\d USD left today\); this order is ≈120\.00 USD; a manual order is never resized: give a smaller --size, or try again once what it counts leaves the 24-h window/,
    );
    expect(rest.stderr).not.toMatch(/slot|reduced/);
    expect(ledger("twapPlaced")).toHaveLength(2);
  });

  it("a TWAP alone above maxDailyNotionalUsd is not told to try again later", async () => {
    // A review: 300 USD a day, an order of about 400 with nothing used was told "or try again once what
    // it counts leaves the 24-h window": waiting never lets it through.
    const tight = writeConfig("tight.yaml", "./state-tight", {
      maxOrderUsd: 1000,
      maxDailyNotionalUsd: 300,
      maxStakeMovePerDay: 5,
    });
    const r = await cli(twap("10", tight));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /above maxDailyNotionalUsd 300 USD for the last 24 h \(0\.00 USD used, 300\.00 USD left today\); this order is ≈400\.00 USD; a manual order is never resized: give a smaller --size\n/,
    );
    expect(r.stderr).not.toMatch(/try again/);
  });

  it("a TWAP within maxOrderUsd but beyond what is left of the day is refused naming maxDailyNotionalUsd", async () => {
    const mine = writeConfig("bot.yaml", "./state");
    expect((await cli(twap("20", mine))).code).toBe(0);
    const second = await cli(twap("20", mine));
    expect(second.code).toBe(1);
    // 800 USD is within maxOrderUsd 1000: the limit it is above is the day's.
    expect(second.stderr).toMatch(
      /refused, nothing sent: above maxDailyNotionalUsd 1000 USD for the last 24 h \(8\d\d\.\d\d USD used, \d+\.\d\d USD left today\); this order is ≈800\.00 USD; a manual order is never resized/,
    );
    expect(second.stderr).not.toMatch(/maxOrderUsd/);
    expect(ledger("twapPlaced")).toHaveLength(1);
  });

  it("a stake move is refused when the venue shows another instance's moves using maxStakeMovePerDay", async () => {
    const other = writeConfig("other.yaml", "./state-other");
    const mine = writeConfig("bot.yaml", "./state");
    const validator = sim.validators()[0]!.address;
    const delegate = (amount: string, config: string) =>
      cli(["delegate", "--validator", validator, "--amount", amount, "--live", "--config", config]);
    expect((await cli(["stake", "--amount", "20", "--live", "--config", other])).code).toBe(0);
    const moved = await delegate("4", other);
    expect(moved.code, moved.stderr).toBe(0);
    expect(ledger("delegate")).toHaveLength(1);

    // 4 of the day's 5 HYPE moved from the other state folder: 3 more are refused, saying what is left.
    const refused = await delegate("3", mine);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /refused, nothing sent: above maxStakeMovePerDay 5 HYPE for the last 24 h \(1 HYPE left today\); a manual action is never resized/,
    );
    expect(ledger("delegate")).toHaveLength(1);
    // An unstake (cWithdraw) counts against the same limit.
    const unstake = await cli(["unstake", "--amount", "2", "--live", "--config", mine]);
    expect(unstake.code).toBe(1);
    expect(unstake.stderr).toMatch(/above maxStakeMovePerDay 5 HYPE for the last 24 h \(1 HYPE left today\)/);
    expect(ledger("withdrawalInitiated")).toHaveLength(0);
    expect(decisions("state").map((d) => [d.kind, d.guard])).toEqual([
      ["tokenDelegate", "blocked"],
      ["cWithdraw", "blocked"],
    ]);

    // The HYPE left of the day still moves.
    const rest = await delegate("1", mine);
    expect(rest.code, rest.stderr).toBe(0);
    expect(ledger("delegate")).toHaveLength(2);
  });
});

describe("a manual live action whose limit the venue's history cannot be counted for is refused", () => {
  it.each([
    ["twapHistory", "maxDailyNotionalUsd", (config: string) => twap("3", config), "twapPlaced"],
    [
      "delegatorHistory",
      "maxStakeMovePerDay",
      (config: string) => [
        "delegate",
        "--validator",
        sim.validators()[0]!.address,
        "--amount",
        "1",
        "--live",
        "--config",
        config,
      ],
      "delegate",
    ],
  ])(
    "%s unreadable: refused naming it and %s, journaled blocked, nothing sent",
    async (query, limit, args, kind) => {
      const config = writeConfig("bot.yaml", "./state");
      expect((await cli(["stake", "--amount", "5", "--live", "--config", config])).code).toBe(0);
      proxy.setRewrites({ [query]: () => ({ not: "a history" }) });
      const run = await cli(args(config));
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        new RegExp(
          query === "twapHistory"
            ? `refused, nothing sent: the venue's account state \\(the twapHistory of the last 24 h for ${limit}, and the prices the checks before the limits read\\) cannot be read: unexpected ${query} response: .*\\(failing closed\\)`
            : `refused, nothing sent: the venue's history of the last 24 h for ${limit} \\(${query}\\) cannot be read: unexpected ${query} response: .*\\(failing closed\\)`,
        ),
      );
      expect(ledger(kind)).toHaveLength(0);
      expect(decisions("state").at(-1)?.guard).toBe("blocked");
      expect(decisions("state").at(-1)?.guardReason).toMatch(new RegExp(`${query}.*cannot be read`));

      // An action no daily limit governs does not need it: a deposit to staking still goes.
      const deposit = await cli(["stake", "--amount", "1", "--live", "--config", config]);
      expect(deposit.code, deposit.stderr).toBe(0);
      expect(ledger("cDeposit")).toHaveLength(2);
    },
  );
});
