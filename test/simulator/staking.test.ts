import { describe, expect, it } from "vitest";
import { VenueCore } from "../../src/simulator/core.js";
import { ADDR, START, testScenario, VALIDATORS } from "./fixtures.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const HYPE = 100_000_000n; // wei per HYPE

function venue(settings: Record<string, unknown> = {}) {
  return new VenueCore({ scenario: testScenario(), settings });
}

const ok = { ok: true };
const hypeSpot = (core: VenueCore, user = ADDR.staker) => core.balance(user, "HYPE").total.toString();
const account = (core: VenueCore, user = ADDR.staker) => core.staking.account(user)!;

describe("staking", () => {
  it("cDeposit moves spot HYPE to the staking balance at once, within what is available", () => {
    const core = venue();
    expect(core.staking.deposit(ADDR.staker, 100n * HYPE, "0x1")).toEqual(ok);
    expect(hypeSpot(core)).toBe("400");
    expect(account(core).undelegated).toBe(100n * HYPE);
    expect(core.staking.deposit(ADDR.staker, 401n * HYPE, "0x2")).toEqual({
      ok: false,
      error: "Insufficient spot balance for staking deposit",
    });
    expect(core.staking.deposit(ADDR.staker, 0n, "0x3").ok).toBe(false);
  });

  it("locks a validator's whole stake for a day per delegation; undelegates instantly after", () => {
    const core = venue();
    core.staking.deposit(ADDR.staker, 100n * HYPE, "0x1");
    expect(core.staking.delegate(ADDR.staker, VALIDATORS.a, 60n * HYPE, false, "0x2")).toEqual(ok);
    const d = account(core).delegations.get(VALIDATORS.a)!;
    expect(d.lockedUntil).toBe(START + DAY);
    expect(core.staking.delegate(ADDR.staker, VALIDATORS.a, 10n * HYPE, true, "0x3")).toEqual({
      ok: false,
      error: `Delegation is locked until ${START + DAY}`,
    });
    expect(core.staking.delegate(ADDR.staker, VALIDATORS.a, 41n * HYPE, false, "0x4")).toEqual({
      ok: false,
      error: "Insufficient undelegated staking balance",
    });
    core.advance(DAY);
    expect(core.staking.delegate(ADDR.staker, VALIDATORS.a, 10n * HYPE, true, "0x5")).toEqual(ok);
    expect(account(core).undelegated).toBe(50n * HYPE);
    expect(core.staking.delegate(ADDR.staker, VALIDATORS.a, 51n * HYPE, true, "0x6")).toEqual({
      ok: false,
      error: "Insufficient delegated stake to undelegate",
    });
    // A new delegation re-locks the whole stake with that validator.
    core.advance(HOUR);
    expect(core.staking.delegate(ADDR.staker, VALIDATORS.a, 1n, false, "0x7")).toEqual(ok);
    expect(core.staking.delegate(ADDR.staker, VALIDATORS.a, 1n, true, "0x8").ok).toBe(false);
    expect(d.lockedUntil).toBe(START + DAY + HOUR + DAY);
    expect(core.staking.delegate(ADDR.staker, VALIDATORS.jailed, 1n, false, "0x9")).toEqual({
      ok: false,
      error: `Validator ${VALIDATORS.jailed} is jailed`,
    });
    expect(core.staking.delegate(ADDR.staker, ADDR.stranger, 1n, false, "0xa").ok).toBe(false);
    // The validator's stake includes simulated delegations.
    const v = core.staking.validator(VALIDATORS.a)!;
    expect(core.staking.stakeOf(v)).toBe(1_000_000n * HYPE + 50n * HYPE + 1n);
    const deltas = account(core).history.map((h) => Object.keys(h.delta)[0]);
    expect(deltas).toEqual(["cDeposit", "delegate", "delegate", "delegate"]);
  });

  it("queues withdrawals for 7 days, at most 5 pending, then pays spot", () => {
    const core = venue();
    core.staking.deposit(ADDR.staker, 100n * HYPE, "0x1");
    for (let i = 0; i < 5; i++) {
      expect(core.staking.withdraw(ADDR.staker, 10n * HYPE, `0x${i}`)).toEqual(ok);
      core.advance(HOUR);
    }
    expect(core.staking.withdraw(ADDR.staker, 10n * HYPE, "0x6")).toEqual({
      ok: false,
      error: "Too many pending withdrawals (maximum 5)",
    });
    expect(core.staking.withdraw(ADDR.staker, 51n * HYPE, "0x7").ok).toBe(false);
    expect(account(core).pending).toHaveLength(5);
    expect(hypeSpot(core)).toBe("400");
    core.advance(7 * DAY - 5 * HOUR - 1);
    expect(hypeSpot(core)).toBe("400");
    core.advance(1);
    expect(hypeSpot(core)).toBe("410");
    expect(account(core).pending).toHaveLength(4);
    core.advance(4 * HOUR);
    expect(hypeSpot(core)).toBe("450");
    const phases = account(core)
      .history.filter((h) => "withdrawal" in h.delta)
      .map((h) => ("withdrawal" in h.delta ? h.delta.withdrawal.phase : ""));
    expect(phases.filter((p) => p === "initiated")).toHaveLength(5);
    expect(phases.filter((p) => p === "finalized")).toHaveLength(5);
  });

  it("pays daily rewards at 00:00 UTC from apr minus commission, compounded; jailed and inactive pay nothing", () => {
    const core = venue();
    core.staking.deposit(ADDR.staker, 300n * HYPE, "0x1");
    core.staking.delegate(ADDR.staker, VALIDATORS.a, 100n * HYPE, false, "0x2");
    core.staking.delegate(ADDR.staker, VALIDATORS.b, 100n * HYPE, false, "0x3");
    // Stake delegated mid-day earns from the next full day (minimum stake of the period).
    core.advance(12 * HOUR);
    expect(account(core).rewards).toHaveLength(0);
    core.advance(DAY);
    // 100 HYPE × 3.65 %/365 = 0.01 per day: A keeps 90 % (commission 10 %), B 100 %.
    const a = account(core).delegations.get(VALIDATORS.a)!;
    const b = account(core).delegations.get(VALIDATORS.b)!;
    expect(a.amount).toBe(100n * HYPE + 900_000n);
    expect(b.amount).toBe(100n * HYPE + 1_000_000n);
    expect(account(core).rewards.map((r) => [r.time, r.source, r.totalAmount])).toEqual([
      [Date.UTC(2025, 0, 3), "delegation", 1_900_000n],
    ]);
    // The operator's commission is compounded onto its self-delegation.
    const op = core.staking.account(VALIDATORS.a)!;
    expect(op.rewards.map((r) => [r.source, r.totalAmount])).toEqual([["commission", 100_000n]]);
    core.advance(DAY);
    // Compounded: the next day's base includes yesterday's reward.
    expect(a.amount).toBe(100n * HYPE + 900_000n + ((100n * HYPE + 900_000n) * 9n) / 100_000n);
    core.setValidator(VALIDATORS.b, { isJailed: true });
    const before = b.amount;
    core.advance(DAY);
    expect(b.amount).toBe(before);
    core.setValidator(VALIDATORS.b, { isJailed: false, isActive: false });
    core.advance(DAY);
    expect(b.amount).toBe(before);
    core.setValidator(VALIDATORS.b, { isActive: true, commission: "0.5" });
    core.advance(DAY);
    expect(b.amount).toBe(before + (before * 5n) / 100_000n);
  });

  it("pays each piece of a day under the terms it had: jailed at noon earns half that day, at midnight all of the day before", () => {
    // Rewards accrue through the day and are paid at 00:00 UTC; a change of terms ends a piece of it.
    const dayReward = (change: number, patch: Parameters<VenueCore["setValidator"]>[1]) => {
      const core = venue();
      core.staking.deposit(ADDR.staker, 100n * HYPE, "0x1");
      core.staking.delegate(ADDR.staker, VALIDATORS.b, 100n * HYPE, false, "0x2");
      core.advance(Date.UTC(2025, 0, 3) - START); // the first full day is paid: 0.01 HYPE
      const paid = account(core).delegations.get(VALIDATORS.b)!.amount;
      expect(paid).toBe(100n * HYPE + 1_000_000n);
      core.advance(change);
      core.setValidator(VALIDATORS.b, patch);
      core.advance(DAY - change);
      return account(core).delegations.get(VALIDATORS.b)!.amount - paid;
    };
    const full = (100n * HYPE + 1_000_000n) / 10_000n; // a day at 3.65 %/365 on the compounded stake
    expect(dayReward(DAY, { isJailed: true })).toBe(full); // jailed at the payout: the day was earned
    expect(dayReward(DAY - 60_000, { isJailed: true })).toBe((full * 1439n) / 1440n);
    expect(dayReward(12 * HOUR, { isJailed: true })).toBe(full / 2n);
    expect(dayReward(0, { isJailed: true })).toBe(0n);
    expect(dayReward(12 * HOUR, { commission: "0.5" })).toBe(full / 2n + full / 4n);
    expect(dayReward(6 * HOUR, { apr: "0.073" })).toBe(full / 4n + (full * 2n * 3n) / 4n);
  });

  it("stops rewards when disabled in the settings", () => {
    const core = venue({ rewards: false });
    core.staking.deposit(ADDR.staker, 100n * HYPE, "0x1");
    core.staking.delegate(ADDR.staker, VALIDATORS.b, 100n * HYPE, false, "0x2");
    core.advance(5 * DAY);
    expect(account(core).rewards).toHaveLength(0);
  });

  it("seeds delegations, pending withdrawals and locks from the scenario", () => {
    const core = new VenueCore({
      scenario: testScenario({
        staking: {
          [ADDR.staker]: { undelegated: "5", pendingWithdrawals: [{ amount: "2", finalizesIn: "1d" }] },
        },
        delegations: [{ user: ADDR.staker, validator: VALIDATORS.a, amount: "7", lockedFor: "3h" }],
      }),
    });
    const acc = account(core);
    expect(acc.undelegated).toBe(5n * HYPE);
    expect(acc.delegations.get(VALIDATORS.a)).toMatchObject({
      amount: 7n * HYPE,
      lockedUntil: START + 3 * HOUR,
    });
    core.advance(DAY);
    expect(hypeSpot(core)).toBe("502");
  });
});
