// A review: a validator kept under minUptime for what it holds took one of the N places, and the
// "next eligible validator" is added only once every chosen one is full. With validators: 2 and 1 HYPE of
// dust on V (98.7%, minUptime 99%), the whole 10,000-HYPE pool goes to A; B (eligible, third) gets
// nothing: the user asked for the stake spread over 2 validators and gets 99.99% on one.
import { expect, it } from "vitest";
import type { Decision, TokenDelegateIntent } from "../../../src/engine/intents.js";
import { validatorStaking, validatorStakingParams } from "../../../src/engine/strategies/validatorStaking.js";
import { addr, buildSnapshot, T0 } from "../../helpers/snapshots.js";

const delegatedTo = (ds: Decision[], v: string) =>
  ds
    .filter(
      (d): d is TokenDelegateIntent => d.kind === "tokenDelegate" && !d.isUndelegate && d.validator === v,
    )
    .reduce((s, d) => s + d.amount.toNumber(), 0);

it("1 HYPE on a keepOnly validator does not put a 10,000 pool on a single validator with validators: 2", () => {
  const [V, A, B] = [addr(1), addr(2), addr(3)];
  const ds = validatorStaking.decide(
    buildSnapshot({
      validators: [
        { address: V, name: "V", apr: "0.040", commission: "0.01", uptime: "0.987" },
        { address: A, name: "A", apr: "0.030", commission: "0.01", uptime: "1" },
        { address: B, name: "B", apr: "0.029", commission: "0.01", uptime: "1" },
      ],
      delegations: [{ validator: V, amount: 1 }],
      undelegated: 10_000,
    }),
    validatorStakingParams.parse({ validators: 2, minUptime: { period: "week", fraction: 0.99 } }),
    T0,
    {},
    "stake",
  );
  const text = ds.map((d) => d.reason).join("\n");
  expect({ A: delegatedTo(ds, A), B: delegatedTo(ds, B) }, text).toEqual({ A: 5_000, B: 5_000 });
});
