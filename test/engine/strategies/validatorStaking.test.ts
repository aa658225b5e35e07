import { describe, expect, it } from "vitest";
import type { Decision, TokenDelegateIntent } from "../../../src/engine/intents.js";
import { validatorStaking, validatorStakingParams } from "../../../src/engine/strategies/validatorStaking.js";
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
const J = addr(9);

const VALIDATORS: ValidatorSpec[] = [
  { address: A, name: "alpha", apr: "0.03", stake: 2_000_000 },
  { address: B, name: "bravo", apr: "0.025", stake: 3_000_000 },
  { address: C, name: "charlie", apr: "0.02", stake: 5_000_000 },
  { address: J, name: "jailbird", apr: "0.05", stake: 9_000_000, isJailed: true },
];

function run(spec: SnapshotSpec, params: Record<string, unknown> = {}): Decision[] {
  const p = validatorStakingParams.parse({ validators: 2, ...params });
  return validatorStaking.decide(buildSnapshot({ validators: VALIDATORS, ...spec }), p, T0, {}, "stake");
}

/** [action, validator, amount] for every tokenDelegate, in order. */
function moves(decisions: Decision[]): Array<[string, string, string]> {
  return decisions
    .filter((d): d is TokenDelegateIntent => d.kind === "tokenDelegate")
    .map((d) => [d.isUndelegate ? "undelegate" : "delegate", d.validator, d.amount.toFixed()]);
}

const skips = (ds: Decision[]) => ds.filter((d) => d.kind === "skip").map((d) => d.reason);

describe("validator-staking", () => {
  it("MUST: undelegates from a jailed validator and splits the stake between the two best eligible ones", () => {
    const decisions = run({ delegations: [{ validator: J, amount: 1000 }] });
    expect(moves(decisions)).toEqual([
      ["undelegate", J, "1000"],
      ["delegate", A, "500"],
      ["delegate", B, "500"],
    ]);
    expect(decisions[0]?.reason).toMatch(/jailbird .* is jailed/);
    expect(decisions.every((d) => d.strategy === "stake")).toBe(true);
  });

  it("counts undelegated stake in the split", () => {
    // 500 delegated + 300 undelegated = 800: 400 each.
    expect(moves(run({ undelegated: 300, delegations: [{ validator: A, amount: 500 }] }))).toEqual([
      ["undelegate", A, "100"],
      ["delegate", B, "400"],
    ]);
  });

  it("respects the 1-day lock: locked stake stays and nothing is delegated from it", () => {
    const lockedUntil = T0 + 3_600_000;
    const decisions = run({ delegations: [{ validator: J, amount: 1000, lockedUntil }] });
    expect(moves(decisions)).toEqual([]);
    const reasons = skips(decisions);
    expect(reasons[0]).toMatch(new RegExp(`locked until ${new Date(lockedUntil).toISOString()}`));
    expect(reasons.slice(1).every((r) => /no undelegated HYPE left/.test(r))).toBe(true);
  });

  it("moves stake only where a delegation is off target by more than the threshold", () => {
    const near = run({
      delegations: [
        { validator: A, amount: 480 },
        { validator: B, amount: 520 },
      ],
    });
    expect(moves(near)).toEqual([]);
    expect(skips(near)[0]).toMatch(/within 10% of its target/);
    const far = run({
      delegations: [
        { validator: A, amount: 400 },
        { validator: B, amount: 600 },
      ],
    });
    expect(moves(far)).toEqual([
      ["undelegate", B, "100"],
      ["delegate", A, "100"],
    ]);
    const tight = run(
      {
        delegations: [
          { validator: A, amount: 480 },
          { validator: B, amount: 520 },
        ],
      },
      { rebalanceThreshold: 0.01 },
    );
    expect(moves(tight)).toEqual([
      ["undelegate", B, "20"],
      ["delegate", A, "20"],
    ]);
  });

  it("filters by commission, uptime, allow and deny lists and activity", () => {
    const validators: ValidatorSpec[] = [
      { address: A, apr: "0.09", commission: "0.2" },
      { address: B, apr: "0.08", stats: { day: { uptimeFraction: "0.5" } } },
      { address: C, apr: "0.07", isActive: false },
      { address: addr(4), apr: "0.06" },
      { address: addr(5), apr: "0.05" },
      { address: addr(6), apr: "0.04" },
    ];
    const params = {
      validators: 1,
      maxCommission: "0.1",
      minUptime: { period: "day", fraction: 0.9 },
      deny: [addr(4)],
    };
    const decisions = run({ validators, undelegated: 10 }, params);
    expect(moves(decisions)).toEqual([["delegate", addr(5), "10"]]);
    const allowOnly = run({ validators, undelegated: 10 }, { ...params, allow: [addr(6)] });
    expect(moves(allowOnly)).toEqual([["delegate", addr(6), "10"]]);
  });

  it("explains why a validator lost its stake", () => {
    const validators: ValidatorSpec[] = [
      { address: A, apr: "0.03", commission: "0.2" },
      { address: B, apr: "0.02" },
      { address: C, apr: "0.01" },
    ];
    const decisions = run(
      {
        validators,
        delegations: [
          { validator: A, amount: 10 },
          { validator: C, amount: 10 },
          { validator: addr(7), amount: 10 },
        ],
      },
      { validators: 1, maxCommission: 0.1 },
    );
    expect(moves(decisions)).toEqual([
      ["undelegate", A, "10"],
      ["undelegate", C, "10"],
      ["undelegate", addr(7), "10"],
      ["delegate", B, "30"],
    ]);
    expect(decisions[0]?.reason).toMatch(/charges 20% commission, above maxCommission 10%/);
    expect(decisions[1]?.reason).toMatch(/is not among the 1 best/);
    expect(decisions[2]?.reason).toMatch(/no longer listed by the venue/);
  });

  it("ranks by stake and allocates by score when asked", () => {
    const decisions = run({ undelegated: 800 }, { rankBy: "stake", allocation: "score" });
    // Best by stake among eligible: C (5M) and B (3M): 800 split 5:3.
    expect(moves(decisions)).toEqual([
      ["delegate", C, "500"],
      ["delegate", B, "300"],
    ]);
  });

  it("truncates every amount to whole wei (8 decimals)", () => {
    const decisions = run({ undelegated: 1 }, { validators: 3 });
    expect(moves(decisions)).toEqual([
      ["delegate", A, "0.33333333"],
      ["delegate", B, "0.33333333"],
      ["delegate", C, "0.33333333"],
    ]);
  });

  it("caps the HYPE moved per run, undelegations first", () => {
    const decisions = run({ delegations: [{ validator: J, amount: 1000 }] }, { maxMovePerRun: 1200 });
    expect(moves(decisions)).toEqual([
      ["undelegate", J, "1000"],
      ["delegate", A, "200"],
    ]);
    expect(skips(decisions)[0]).toMatch(/maxMovePerRun 1200 HYPE reached/);
  });

  it("moves idle spot HYPE above keepSpot into staking first and delegates it in the same run", () => {
    const decisions = run(
      { balances: { HYPE: { total: 350, hold: 50 } } },
      { stakeIdleSpot: { enabled: true, keepSpot: 100 } },
    );
    expect(decisions[0]).toMatchObject({ kind: "cDeposit" });
    expect((decisions[0] as { amount: { toFixed(): string } }).amount.toFixed()).toBe("200");
    expect(moves(decisions)).toEqual([
      ["delegate", A, "100"],
      ["delegate", B, "100"],
    ]);
    const disabled = run({ balances: { HYPE: 350 } }, { stakeIdleSpot: { enabled: false, keepSpot: 100 } });
    expect(disabled.some((d) => d.kind === "cDeposit")).toBe(false);
  });

  it("does nothing without an eligible validator or without stake", () => {
    const none = run({ validators: [{ address: J, isJailed: true }], undelegated: 10 });
    expect(none).toHaveLength(1);
    expect(none[0]?.reason).toMatch(/no eligible validator/);
    const empty = run({});
    expect(moves(empty)).toEqual([]);
    expect(skips(empty)[0]).toMatch(/no HYPE staked/);
  });

  it("rejects an address in both allow and deny", () => {
    const r = validatorStakingParams.safeParse({
      validators: 1,
      allow: [A],
      deny: [A.toUpperCase().replace("0X", "0x")],
    });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(["allow", 0]);
  });

  it("ignores stake locked long ago", () => {
    const decisions = run({ delegations: [{ validator: J, amount: 10, lockedUntil: T0 - 2 * DAY_MS }] });
    expect(moves(decisions)[0]).toEqual(["undelegate", J, "10"]);
  });
});
