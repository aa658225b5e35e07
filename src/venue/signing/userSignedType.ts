// The vocabulary an action module uses to describe how it is user-signed: its EIP-712 type (built with
// `userSignedType`) and its `signatureChainId`. Kept apart from ./userSigned.ts, which looks the types up
// in the action registry (src/venue/exchange/actions), so that the action modules can use these without
// an import cycle.
import { ValidationError } from "../../lib/errors.js";
import type { Eip712Field } from "./eip712.js";
import { describe } from "./hex.js";

export interface UserSignedType {
  primaryType: string;
  fields: readonly Eip712Field[];
}

/** `HyperliquidTransaction:<primaryType>` with `[type, name]` fields, in signing order; frozen. */
export function userSignedType(primaryType: string, fields: [string, string][]): UserSignedType {
  return Object.freeze({
    primaryType: `HyperliquidTransaction:${primaryType}`,
    fields: Object.freeze(fields.map(([type, name]) => Object.freeze({ name, type }))),
  });
}

/** `signatureChainId` ("0x66eee") as the domain chainId. */
export function parseSignatureChainId(value: unknown): bigint {
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]{1,16}$/.test(value) || BigInt(value) === 0n) {
    throw new ValidationError([
      {
        path: "signatureChainId",
        message: `expected a non-zero hex chain id like "0x66eee", got ${describe(value)}`,
      },
    ]);
  }
  return BigInt(value);
}
