// minUptime hysteresis: a validator "holding this account's stake" is judged against the lower bar
// (0.99 → 98.5%), and was then fully eligible (a review): ranked, chosen, and a target for NEW stake. Holding
// 1 HYPE of dust on a validator at 98.6% uptime makes it take a 10,000-HYPE idle pool, though minUptime
// 99% excludes it for new stake ("a new validator still needs minUptime").
import { expect, it } from "vitest";
import type { Decision, TokenDelegateIntent } from "../../../src/engine/intents.js";
import { validatorStaking, validatorStakingParams } from "../../../src/engine/strategies/validatorStaking.js";
import { addr, buildSnapshot, T0 } from "../../helpers/snapshots.js";

const delegations = (ds: Decision[]) =>
  ds.filter((d): d is TokenDelegateIntent => d.kind === "tokenDelegate" && !d.isUndelegate);

it("new idle stake does not go to a validator below minUptime just because it holds 1 HYPE of ours", () => {
  const [X, Y] = [addr(1), addr(2)];
  const ds = validatorStaking.decide(
    buildSnapshot({
      validators: [
        { address: X, name: "X", apr: "0.030", commission: "0.01", uptime: "0.986" },
        { address: Y, name: "Y", apr: "0.025", commission: "0.01", uptime: "1" },
      ],
      delegations: [{ validator: X, amount: 1 }],
      undelegated: 10_000,
    }),
    validatorStakingParams.parse({ validators: 1, minUptime: { period: "week", fraction: 0.99 } }),
    T0,
    {},
    "stake",
  );
  const toX = delegations(ds)
    .filter((d) => d.validator === X)
    .reduce((s, d) => s + d.amount.toNumber(), 0);
  // The 10,000 HYPE go to Y (X is below minUptime 99% for new stake); before the fix, all to X.
  expect(toX).toBe(0);
  expect(
    delegations(ds)
      .filter((d) => d.validator === Y)
      .reduce((s, d) => s + d.amount.toNumber(), 0),
  ).toBe(10_000);
});
