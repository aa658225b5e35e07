// maxNetworkShare: the small idle pool went in one piece only where it fits under the limit, but stake
// moved off a validator still went in one piece to the first deficit whatever its room (a review): 100 HYPE leaving a jailed validator take A 40 HYPE over the limit.
import { expect, it } from "vitest";
import type { Decision, TokenDelegateIntent } from "../../../src/engine/intents.js";
import { validatorStaking, validatorStakingParams } from "../../../src/engine/strategies/validatorStaking.js";
import { addr, buildSnapshot, T0, type ValidatorSpec } from "../../helpers/snapshots.js";

const delegations = (ds: Decision[]) =>
  ds.filter((d): d is TokenDelegateIntent => d.kind === "tokenDelegate" && !d.isUndelegate);

it("stake leaving a jailed validator does not take a chosen one over maxNetworkShare", () => {
  const [A, B, J] = [addr(1), addr(2), addr(3)];
  // Network: 100,000,000 HYPE. A at 20M - 60: 60 HYPE of room under 20%.
  const validators: ValidatorSpec[] = [
    { address: A, name: "A", apr: "0.030", commission: "0.01", stake: 19_999_940 },
    { address: B, name: "B", apr: "0.030", commission: "0.01", stake: 10_000_000 },
    { address: J, name: "J", apr: "0.030", commission: "0.01", stake: 1_000_000, isJailed: true },
    { address: addr(10), apr: "0.02", commission: "0.10", stake: 19_000_000 },
    { address: addr(11), apr: "0.02", commission: "0.10", stake: 19_000_000 },
    { address: addr(12), apr: "0.02", commission: "0.10", stake: 19_000_000 },
    { address: addr(13), apr: "0.02", commission: "0.10", stake: 12_000_060 },
  ];
  const ds = validatorStaking.decide(
    buildSnapshot({
      validators,
      delegations: [
        { validator: B, amount: 10_000 },
        { validator: J, amount: 100 },
      ],
    }),
    validatorStakingParams.parse({ validators: 2, maxNetworkShare: 0.2 }),
    T0,
    {},
    "stake",
  );
  const toA = delegations(ds)
    .filter((d) => d.validator === A)
    .reduce((s, d) => s + d.amount.toNumber(), 0);
  expect(delegations(ds).length).toBeGreaterThan(0);
  // Room on A: 60 HYPE (before the fix: 100).
  expect(toA).toBeLessThanOrEqual(60);
});
