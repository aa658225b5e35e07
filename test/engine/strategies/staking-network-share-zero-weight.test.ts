// maxNetworkShare: the validator added when the chosen have no room got weight 0 under
// allocation: score when its score is 0 (here uptime 0 with penalties.uptime; or jailedFactor 0, rankBy
// uptime): wsum = 0 breaks the loop with `rest` unassigned. 80,000 of 100,000 HYPE stay idle (earning
// nothing) with a note saying C was "added"; before, the rest was spread over the chosen, and said.
import { expect, it } from "vitest";
import type { Decision, TokenDelegateIntent } from "../../../src/engine/intents.js";
import { validatorStaking, validatorStakingParams } from "../../../src/engine/strategies/validatorStaking.js";
import { addr, buildSnapshot, T0, type ValidatorSpec } from "../../helpers/snapshots.js";

const delegations = (ds: Decision[]) =>
  ds.filter((d): d is TokenDelegateIntent => d.kind === "tokenDelegate" && !d.isUndelegate);

it("idle stake is not silently left idle when the validator added for room scores 0", () => {
  const [A, B, C] = [addr(1), addr(2), addr(3)];
  const validators: ValidatorSpec[] = [
    { address: A, name: "A", apr: "0.030", commission: "0.01", stake: 19_990_000 },
    { address: B, name: "B", apr: "0.030", commission: "0.01", stake: 19_990_000 },
    { address: C, name: "C", apr: "0.029", commission: "0.01", stake: 10_000_000, uptime: "0" },
    // Above 20%: excluded.
    ...[10, 11].map((n) => ({ address: addr(n), apr: "0.020", commission: "0.10", stake: 25_010_000 })),
  ];
  const ds = validatorStaking.decide(
    buildSnapshot({ validators, undelegated: 100_000 }),
    validatorStakingParams.parse({
      validators: 2,
      maxNetworkShare: 0.2,
      allocation: "score",
      penalties: { uptime: true },
    }),
    T0,
    {},
    "stake",
  );
  const total = delegations(ds).reduce((s, d) => s + d.amount.toNumber(), 0);
  const text = ds.map((d) => d.reason).join("\n");
  // Either all of it is delegated, or the idle rest is said. (Before the fix: 20,000 delegated, 80,000 unsaid.)
  expect(total === 100_000 || /80000/.test(text)).toBe(true);
});
