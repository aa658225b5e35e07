// maxNetworkShare: "no delegation takes one above it". When the N chosen validators had no room, the
// rest was spread over them anyway though an eligible validator with room existed (a review): the next
// eligible validators with room take it now, and nothing stays idle.
import { expect, it } from "vitest";
import type { Decision, TokenDelegateIntent } from "../../../src/engine/intents.js";
import { validatorStaking, validatorStakingParams } from "../../../src/engine/strategies/validatorStaking.js";
import { addr, buildSnapshot, T0, type ValidatorSpec } from "../../helpers/snapshots.js";

const delegations = (ds: Decision[]) =>
  ds.filter((d): d is TokenDelegateIntent => d.kind === "tokenDelegate" && !d.isUndelegate);

it("idle stake does not take a chosen validator over maxNetworkShare while another eligible one has room", () => {
  const [A, B, C] = [addr(1), addr(2), addr(3)];
  const fillers: ValidatorSpec[] = [10, 11, 12].map((n) => ({
    address: addr(n),
    apr: "0.020",
    commission: "0.10",
    stake: 16_670_000,
  }));
  // Network 100M. A and B each 19.99M (19.99%): 10,000 HYPE of room each. C pays a little less, 10M.
  const validators: ValidatorSpec[] = [
    { address: A, name: "A", apr: "0.030", commission: "0.01", stake: 19_990_000 },
    { address: B, name: "B", apr: "0.030", commission: "0.01", stake: 19_990_000 },
    { address: C, name: "C", apr: "0.029", commission: "0.01", stake: 10_000_000 },
    ...fillers,
  ];
  const ds = validatorStaking.decide(
    buildSnapshot({ validators, undelegated: 100_000 }),
    validatorStakingParams.parse({ validators: 2, maxNetworkShare: 0.2 }),
    T0,
    {},
    "stake",
  );
  const network = 19_990_000 * 2 + 10_000_000 + 50_010_000 + 100_000; // after the delegations
  for (const v of [A, B]) {
    const added = delegations(ds)
      .filter((d) => d.validator === v)
      .reduce((s, d) => s + d.amount.toNumber(), 0);
    expect((19_990_000 + added) / network).toBeLessThanOrEqual(0.2);
  }
  // The rest went to C (added, and said), not left idle.
  const total = delegations(ds).reduce((s, d) => s + d.amount.toNumber(), 0);
  expect(total).toBe(100_000);
  expect(delegations(ds).some((d) => d.validator === C)).toBe(true);
  expect(ds.map((d) => d.reason).join("\n")).toMatch(
    /added: the validators chosen take no more \(maxNetworkShare 20%\)/,
  );
});
