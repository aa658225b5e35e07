// The action registry: every action's module is listed under its own type, and its wire schema reads
// back exactly what its builder wrote, after the journal's round trip through JSON (a wei beyond 2^53
// comes back as a bigint). A registry entry without a sample here does not compile.
import { describe, expect, it } from "vitest";
import { parseJson, stringifyJson } from "../../../../src/lib/json.js";
import {
  type ActionInput,
  actionDef,
  EXCHANGE_ACTIONS,
  type ExchangeActionType,
  isExchangeActionType,
  wireSchemaOf,
} from "../../../../src/venue/exchange/actions/index.js";
import { signingKindOf, USER_SIGNED_TYPES } from "../../../../src/venue/signing/userSigned.js";

const VALIDATOR = "0x5ac99df645f3414876c816caa18b2d234024b487";

const SAMPLES: { [T in ExchangeActionType]: ActionInput<T>[] } = {
  twapOrder: [{ asset: 10107, isBuy: true, size: "12.5", szDecimals: 2, minutes: 30 }],
  twapCancel: [{ asset: 10107, twapId: 77 }],
  tokenDelegate: [
    { validator: VALIDATOR, amount: "12.5", isUndelegate: false },
    { validator: VALIDATOR, amount: "123456789.12345678", isUndelegate: true },
  ],
  linkStakingUser: [{ user: VALIDATOR, isFinalize: true }],
  cDeposit: [{ amount: "0.00000001" }],
  cWithdraw: [{ amount: "100000000.5" }],
  approveAgent: [{ agentAddress: VALIDATOR }, { agentAddress: VALIDATOR, agentName: "bot" }],
};

const TYPES = Object.keys(EXCHANGE_ACTIONS) as ExchangeActionType[];

describe("exchange action registry", () => {
  it.each(TYPES)("%s is listed under its own type, with its signing recipe", (type) => {
    const def = actionDef(type);
    expect(def.type).toBe(type);
    expect(isExchangeActionType(type)).toBe(true);
    expect(signingKindOf(type)).toBe(def.signing);
    const eip712 = (USER_SIGNED_TYPES as Record<string, unknown>)[type];
    expect(eip712).toBe(def.signing === "user" ? def.eip712 : undefined);
  });

  it.each(TYPES)("%s: the wire schema reads back what the builder wrote", (type) => {
    for (const input of SAMPLES[type]) {
      const built = actionDef(type).build(input as never, { network: "testnet", nonce: 1735380381353 });
      const journaled = parseJson(stringifyJson({ action: built })) as { action: unknown };
      expect(wireSchemaOf(type).parse(journaled.action)).toEqual(journaled.action);
    }
  });

  it("reads a wei beyond 2^53 back as the same bigint", () => {
    const built = actionDef("cWithdraw").build({ amount: "100000000.5" }, { network: "testnet", nonce: 1 });
    expect(typeof built.wei).toBe("bigint");
    const journaled = parseJson(stringifyJson(built));
    expect(wireSchemaOf("cWithdraw").parse(journaled).wei).toBe(built.wei);
  });

  it("knows no other type", () => {
    for (const type of ["usdSend", "order", "toString", "__proto__", 7])
      expect(isExchangeActionType(type)).toBe(false);
  });
});
