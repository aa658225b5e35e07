// validator-staking remembers its own moves for yield: a validator it moved stake away from for yield
// is no candidate for horizonDays (the next best takes its place). A staker's 90 days beside a validator whose APR came and went every two
// days: 92 moves earned 5.5 HYPE where never moving earned 10.0 (each move costs a day of rewards).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/engine/config/loader.js";
import type { Decision, TokenDelegateIntent } from "../../../src/engine/intents.js";
import { validatorStaking, validatorStakingParams } from "../../../src/engine/strategies/validatorStaking.js";
import { Decimal } from "../../../src/lib/decimal.js";
import { runSimulation } from "../../../src/simulate/runner.js";
import {
  addr,
  buildSnapshot,
  DAY_MS,
  type SnapshotSpec,
  T0,
  type ValidatorSpec,
} from "../../helpers/snapshots.js";

const A = addr(1);
const B = addr(2);
const C = addr(3);
const D = addr(4);
const J = addr(9);
const VALIDATORS: ValidatorSpec[] = [
  { address: A, name: "alpha", apr: "0.03", stake: 2_000_000 },
  { address: B, name: "bravo", apr: "0.025", stake: 3_000_000 },
  { address: J, name: "jailbird", apr: "0.05", stake: 9_000_000, isJailed: true },
];

function decide(spec: SnapshotSpec, params: Record<string, unknown> = {}): Decision[] {
  const p = validatorStakingParams.parse({ validators: 1, ...params });
  return validatorStaking.decide(buildSnapshot({ validators: VALIDATORS, ...spec }), p, T0, {}, "stake");
}
const moves = (ds: Decision[]) =>
  ds
    .filter((d): d is TokenDelegateIntent => d.kind === "tokenDelegate")
    .map((d) => [d.isUndelegate ? "undelegate" : "delegate", d.validator, d.amount.toFixed()]);
const reasons = (ds: Decision[]) => ds.map((d) => d.reason).join("\n");

/**
 * Stake moved from `from` to `to` `daysAgo` days before T0 (one cycle: both legs in the same second), as
 * the venue's history shows it and, unless `own` is false, as this strategy journaled it (`forYield`:
 * a move for yield, or one that had to leave).
 */
function moved(
  from: string,
  to: string,
  daysAgo: number,
  o: { amount?: number; forYield?: boolean; own?: boolean } = {},
): Pick<SnapshotSpec, "stakingHistory" | "ownStakingMoves"> {
  const time = T0 - daysAgo * DAY_MS;
  const amount = new Decimal(o.amount ?? 1000);
  return {
    stakingHistory: [
      { time, kind: "undelegate", validator: from, amount },
      { time, kind: "delegate", validator: to, amount },
    ],
    ownStakingMoves:
      o.own === false
        ? []
        : [
            {
              time,
              validator: from,
              amount,
              isUndelegate: true,
              ...(o.forYield === false ? {} : { forYield: true }),
            },
            { time, validator: to, amount, isUndelegate: false },
          ],
  };
}

describe("validator-staking: no move back within horizonDays", () => {
  it("keeps stake where it went when the validator it left for yield leads again within horizonDays", () => {
    const decisions = decide({ delegations: [{ validator: B, amount: 1000 }], ...moved(A, B, 5) });
    expect(moves(decisions)).toEqual([]);
    expect(reasons(decisions)).toMatch(
      /not moved back to for yield before horizonDays 30 have passed since stake left it: alpha \(0x.*\) .*\(left 20\S+, until 20\S+\)/,
    );
  });

  it("moves back once horizonDays have passed since it left", () => {
    const decisions = decide({ delegations: [{ validator: B, amount: 1000 }], ...moved(A, B, 31) });
    expect(moves(decisions)).toEqual([
      ["undelegate", B, "1000"],
      ["delegate", A, "1000"],
    ]);
    // horizonDays is the memory's length too.
    const shorter = decide(
      { delegations: [{ validator: B, amount: 1000 }], ...moved(A, B, 7) },
      { horizonDays: 6 },
    );
    expect(moves(shorter)).toEqual([
      ["undelegate", B, "1000"],
      ["delegate", A, "1000"],
    ]);
  });

  it("remembers only its own moves for yield: not stake that had to leave, nor the user's own move", () => {
    // Left because it had to (a jail since lifted): back to the best at once.
    const forced = decide({
      delegations: [{ validator: B, amount: 1000 }],
      ...moved(A, B, 5, { forYield: false }),
    });
    expect(moves(forced)).toEqual([
      ["undelegate", B, "1000"],
      ["delegate", A, "1000"],
    ]);
    // The user's own move (not journaled by hlbot) is no memory of hlbot's.
    const byHand = decide(
      { delegations: [{ validator: B, amount: 1000 }], ...moved(A, B, 8, { own: false }) },
      { respectManualDays: 7 },
    );
    expect(moves(byHand)).toEqual([
      ["undelegate", B, "1000"],
      ["delegate", A, "1000"],
    ]);
  });

  it("a withdrawal is not a move: the validator it came from stays a candidate", () => {
    // A review: 300 HYPE undelegated from alpha and withdrawn blocked moving bravo's 1000 to alpha.
    const time = T0 - 5 * DAY_MS;
    const decisions = decide({
      delegations: [{ validator: B, amount: 1000, lockedUntil: T0 - 20 * DAY_MS }],
      stakingHistory: [
        { time, kind: "undelegate", validator: A, amount: new Decimal(300) },
        { time, kind: "withdrawalInitiated", amount: new Decimal(300) },
      ],
      ownStakingMoves: [{ time, validator: A, amount: new Decimal(300), isUndelegate: true }],
    });
    expect(moves(decisions)).toEqual([
      ["undelegate", B, "1000"],
      ["delegate", A, "1000"],
    ]);
  });

  it("the next best takes the place of the one left: stake does not stay on a validator that collapsed", () => {
    // A review: alpha → charlie for a 2-day spike; charlie then paid 0.5% and the stake stayed there 28
    // days (the memory held alpha back) while bravo, never left, paid 2.3%.
    const collapsed: ValidatorSpec[] = [
      { address: A, name: "alpha", apr: "0.03", stake: 2_000_000 },
      { address: B, name: "bravo", apr: "0.025", stake: 3_000_000 },
      { address: C, name: "charlie", apr: "0.005", stake: 5_000_000 },
    ];
    const p = validatorStakingParams.parse({ validators: 1 });
    const snapshot = buildSnapshot({
      validators: collapsed,
      delegations: [{ validator: C, amount: 1000 }],
      ...moved(A, C, 2),
    });
    expect(moves(validatorStaking.decide(snapshot, p, T0, {}, "stake"))).toEqual([
      ["undelegate", C, "1000"],
      ["delegate", B, "1000"],
    ]);
  });

  it("with several validators chosen, the one left is not among them (a review: N=2 moved back at once)", () => {
    const four: ValidatorSpec[] = [
      { address: A, name: "alpha", apr: "0.05", stake: 1_000_000 },
      { address: B, name: "bravo", apr: "0.04", stake: 1_000_000 },
      { address: C, name: "charlie", apr: "0.02", stake: 1_000_000 },
      { address: D, name: "delta", apr: "0.021", stake: 1_000_000 },
    ];
    const snapshot = buildSnapshot({
      validators: four,
      delegations: [
        { validator: C, amount: 1000 },
        { validator: D, amount: 1000 },
      ],
      ...moved(A, C, 5),
    });
    const ds = validatorStaking.decide(
      snapshot,
      validatorStakingParams.parse({ validators: 2 }),
      T0,
      {},
      "stake",
    );
    const to = moves(ds)
      .filter((m) => m[0] === "delegate")
      .map((m) => m[1]);
    expect(to).not.toContain(A);
    expect(to).toContain(B);
  });

  it("the one left still fills a place nothing else can: N and maxShare hold (a second review)", () => {
    // bravo → charlie for yield 3 days ago; charlie is jailed now. With N=2 and maxShare 50%, its stake
    // goes to bravo (left, but the only other eligible), not all on alpha.
    const vs: ValidatorSpec[] = [
      { address: A, name: "alpha", apr: "0.03", stake: 2_000_000 },
      { address: B, name: "bravo", apr: "0.025", stake: 3_000_000 },
      { address: C, name: "charlie", apr: "0.05", stake: 5_000_000, isJailed: true },
    ];
    const snapshot = buildSnapshot({
      validators: vs,
      delegations: [
        { validator: A, amount: 1000 },
        { validator: C, amount: 1000 },
      ],
      ...moved(B, C, 3),
    });
    const ds = validatorStaking.decide(
      snapshot,
      validatorStakingParams.parse({ validators: 2, maxShare: 0.5 }),
      T0,
      {},
      "stake",
    );
    expect(moves(ds)).toEqual([
      ["undelegate", C, "1000"],
      ["delegate", B, "1000"],
    ]);
    // Stake that had to leave is no move for yield: nothing to remember of it.
    expect(ds.some((d) => d.kind === "tokenDelegate" && d.forYield === true)).toBe(false);
  });

  it("only a move for yield is marked to remember: not one that keeps the count at N", () => {
    const equal: ValidatorSpec[] = [
      { address: A, name: "alpha", apr: "0.03", stake: 1_000_000 },
      { address: B, name: "bravo", apr: "0.03", stake: 1_000_000 },
      { address: C, name: "charlie", apr: "0.03", stake: 1_000_000 },
    ];
    const count = validatorStaking.decide(
      buildSnapshot({
        validators: equal,
        delegations: [
          { validator: A, amount: 1000 },
          { validator: B, amount: 1000 },
          { validator: C, amount: 900 },
        ],
      }),
      validatorStakingParams.parse({ validators: 2 }),
      T0,
      {},
      "stake",
    );
    const leaving = count.filter(
      (d): d is TokenDelegateIntent => d.kind === "tokenDelegate" && d.isUndelegate,
    );
    expect(leaving.map((d) => d.validator)).toEqual([C, C]);
    expect(leaving.every((d) => d.forYield === undefined)).toBe(true);
    // Beaten by a better validator: marked.
    const better = decide({ delegations: [{ validator: B, amount: 1000 }] });
    expect(better.filter((d) => d.kind === "tokenDelegate" && d.isUndelegate)).toMatchObject([
      { validator: B, forYield: true },
    ]);
  });

  it("when no other validator is eligible, the one left stays a candidate", () => {
    const two: ValidatorSpec[] = [
      { address: A, name: "alpha", apr: "0.03", stake: 2_000_000 },
      { address: J, name: "jailbird", apr: "0.05", stake: 9_000_000, isJailed: true },
    ];
    const snapshot = buildSnapshot({
      validators: two,
      delegations: [{ validator: J, amount: 1000 }],
      ...moved(A, J, 5),
    });
    expect(
      moves(
        validatorStaking.decide(snapshot, validatorStakingParams.parse({ validators: 1 }), T0, {}, "stake"),
      ),
    ).toEqual([
      ["undelegate", J, "1000"],
      ["delegate", A, "1000"],
    ]);
  });

  it("a validator still holding stake is not 'left': balance and yield rules apply as before", () => {
    // Part of A's stake moved to B 5 days ago; A still holds 600: nothing here is a return to A.
    const decisions = decide(
      {
        delegations: [
          { validator: A, amount: 600 },
          { validator: B, amount: 400 },
        ],
        ...moved(A, B, 5, { amount: 400 }),
      },
      { validators: 1 },
    );
    expect(moves(decisions)).toEqual([
      ["undelegate", B, "400"],
      ["delegate", A, "400"],
    ]);
  });
});

describe("validator-staking: an APR that comes and goes, 90 simulated days", () => {
  it("moves at most once per horizonDays and earns close to never moving", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hlbot-no-round-trip-"));
    try {
      const user = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
      const flip = "0xaaaa000000000000000000000000000000000001";
      const steady = "0xaaaa000000000000000000000000000000000002";
      const events = Array.from({ length: 44 }, (_, k) => {
        const d = 2 * (k + 1);
        return `  - { at: ${d}d, type: validator, validator: "${flip}", apr: "${k % 2 === 0 ? "0.03" : "0.02"}" }`;
      }).join("\n");
      writeFileSync(
        join(dir, "scenario.yaml"),
        `name: flip\nseed: 7\nsettings:\n  startTime: "2025-01-01T00:00:00Z"\n  delegationLock: 1d\n  withdrawalDelay: 7d\ntokens:\n  - { name: USDC, index: 0, szDecimals: 8, weiDecimals: 8, tokenId: "0x6d1e7cde53ba9467b783cb7c530ce054", isCanonical: true }\n  - { name: HYPE, index: 150, szDecimals: 2, weiDecimals: 8, tokenId: "0x0d01dc56dcaaca66ad901c959b4011ec" }\npairs:\n  - { index: 107, base: HYPE, quote: USDC }\nprices:\n  "@107": { start: "25.0", drift: 0.0, volatility: 0.5 }\nvalidators:\n  - { address: "${flip}", name: Flip, stake: "20000000", commission: "0.04", apr: "0.0235", uptime: "1.0", nRecentBlocks: 10 }\n  - { address: "${steady}", name: Steady, stake: "20000000", commission: "0.02", apr: "0.0241", uptime: "1.0", nRecentBlocks: 10 }\naccounts:\n  - { address: "${user}", label: demo }\nbalances:\n  "${user}": { USDC: "1000", HYPE: "0" }\ndelegations:\n  - { user: "${user}", validator: "${steady}", amount: "1700" }\nevents:\n${events}\n`,
      );
      const run = async (params: string) => {
        writeFileSync(
          join(dir, "stake.yaml"),
          `name: stake\nkind: validator-staking\nschedule: "15 */6 * * *"\nparams:\n  validators: 1\n${params}`,
        );
        writeFileSync(
          join(dir, "bot.yaml"),
          "network: testnet\nmode: dry-run\nstrategies: [./stake.yaml]\nlimits: {maxOrderUsd: 5000, maxDailyNotionalUsd: 20000, maxStakeMovePerDay: 5000}\n",
        );
        const config = await loadConfig(join(dir, "bot.yaml"), {});
        const result = await runSimulation({ config, scenarioFile: join(dir, "scenario.yaml"), days: 90 });
        const ledger = result.record.ledger;
        return {
          moves: ledger.filter((e) => e.kind === "delegate").length,
          rewards: ledger.filter((e) => e.kind === "reward").reduce((s, e) => s + Number(e.data.amount), 0),
        };
      };
      const bot = await run("");
      const still = await run("  minImprovement: 0.5\n"); // never moves for yield
      expect(still.moves).toBe(0);
      // Flip's lead (2.88% vs 2.36% net) lasts two days, then it trails (1.92%): a move each time it led
      // cost a day of rewards and earned 45% less than staying. Now: one move per 30 days at most.
      expect(bot.moves).toBeGreaterThan(0);
      expect(bot.moves).toBeLessThanOrEqual(3);
      expect(bot.rewards).toBeGreaterThan(still.rewards * 0.95);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
