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

it("a delegation of new stake counts itself in the network's stake: the next run moves nothing (a trial's whale)", () => {
  const [A, B] = [addr(1), addr(2)];
  // Network 2,000,000 HYPE; A pays best at 19.5%; the account delegates 100,000 new HYPE over 2.
  const fillers = (extra = 0): ValidatorSpec[] =>
    [10, 11, 12, 13].map((n) => ({
      address: addr(n),
      apr: "0.020",
      commission: "0.10",
      stake: 377_500 + (n === 10 ? extra : 0),
    }));
  const params = validatorStakingParams.parse({ validators: 2, maxNetworkShare: 0.2 });
  const first = validatorStaking.decide(
    buildSnapshot({
      validators: [
        { address: A, name: "A", apr: "0.030", commission: "0.01", stake: 390_000 },
        { address: B, name: "B", apr: "0.029", commission: "0.01", stake: 100_000 },
        ...fillers(),
      ],
      undelegated: 100_000,
    }),
    params,
    T0,
    {},
    "stake",
  );
  const to = (v: string) =>
    delegations(first)
      .filter((d) => d.validator === v)
      .reduce((s, d) => s + d.amount.toNumber(), 0);
  // After the run the network holds 2,100,000: A may reach 420,000 (before: 10,000 of room on 2,000,000).
  expect(to(A)).toBe(30_000);
  expect(to(B)).toBe(70_000);
  // The next run, on the stake as the venue then shows it, leaves it where it is.
  const second = validatorStaking.decide(
    buildSnapshot({
      validators: [
        { address: A, name: "A", apr: "0.030", commission: "0.01", stake: 390_000 + to(A) },
        { address: B, name: "B", apr: "0.029", commission: "0.01", stake: 100_000 + to(B) },
        ...fillers(),
      ],
      delegations: [
        { validator: A, amount: to(A), lockedUntil: T0 - 2 * 86_400_000 },
        { validator: B, amount: to(B), lockedUntil: T0 - 2 * 86_400_000 },
      ],
    }),
    params,
    T0 + 86_400_000,
    {},
    "stake",
  );
  expect(second.filter((d) => d.kind === "tokenDelegate")).toEqual([]);
});
