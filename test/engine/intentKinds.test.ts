// The engine's per-intent-kind table (src/engine/intentKinds.ts). Its type maps every kind of intent,
// so a kind without an entry is a compile error (`npm run typecheck`); the @ts-expect-error lines below
// keep that true. At run time: every kind is an exchange action, sent as the call of that action.
import { describe, expect, it } from "vitest";
import {
  callFor,
  INTENT_KINDS,
  type IntentKind,
  type IntentKindTable,
  isIntentKind,
} from "../../src/engine/intentKinds.js";
import { Decimal } from "../../src/lib/decimal.js";
import { isExchangeActionType } from "../../src/venue/exchange/actions/index.js";

describe("the per-intent-kind table", () => {
  it("does not compile without an entry for every kind", () => {
    const { linkStakingUser: _left, ...withoutOne } = INTENT_KINDS;
    // @ts-expect-error: linkStakingUser is missing
    const incomplete: IntentKindTable = withoutOne;
    // A new kind of intent, e.g. "spotSend", is missing from the table until it is given an entry.
    // @ts-expect-error: spotSend is missing
    const wider: { [K in IntentKind | "spotSend"]: unknown } = INTENT_KINDS;
    expect(Object.keys(incomplete)).toHaveLength(5);
    expect(wider).toBe(INTENT_KINDS);
  });

  it("has one entry per kind, each an exchange action", () => {
    const kinds = Object.keys(INTENT_KINDS);
    expect(kinds).toHaveLength(6);
    for (const kind of kinds) {
      expect(isIntentKind(kind)).toBe(true);
      expect(isExchangeActionType(kind)).toBe(true);
    }
    for (const kind of ["approveAgent", "skip", "toString", "__proto__"])
      expect(isIntentKind(kind)).toBe(false);
  });

  it("sends an intent as the call of the action of the same name", () => {
    const base = { strategy: "s", reason: "r" };
    expect(callFor({ ...base, kind: "cDeposit", amount: new Decimal("1.5") })).toEqual({
      type: "cDeposit",
      params: { amount: new Decimal("1.5") },
    });
    expect(callFor({ ...base, kind: "twapCancel", assetId: 10107, twapId: 3 })).toEqual({
      type: "twapCancel",
      params: { asset: 10107, twapId: 3 },
    });
    expect(() => callFor({ ...base, kind: "launchRocket" } as never)).toThrow(/unhandled variant/);
  });
});
