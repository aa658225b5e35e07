// `tokenDelegate` (user-signed): delegates HYPE from the staking balance to a validator,
// or undelegates it. Needs the account's own key; an agent's signature is refused by the venue.
import { z } from "zod";
import type { Decimal } from "../../../lib/decimal.js";
import type { NetworkName } from "../../networks.js";
import { type Address, normalizeAddress } from "../../signing/hex.js";
import { userSignedType } from "../../signing/userSignedType.js";
import {
  AddressWire,
  checkBool,
  checkInt,
  defineUserSignedAction,
  IssueList,
  NonceWire,
  parseUserSigned,
  type SigningKind,
  type UserSignedHeader,
  UserSignedResponse,
  userSignedHeader,
  userSignedHeaderWire,
  WeiWire,
  weiOf,
} from "./common.js";

export interface TokenDelegateAction extends UserSignedHeader {
  type: "tokenDelegate";
  validator: Address;
  /** HYPE × 10^8; a bigint only beyond 2^53 − 1. */
  wei: number | bigint;
  isUndelegate: boolean;
  nonce: number;
}

export interface TokenDelegateParams {
  network: NetworkName;
  validator: string;
  /** HYPE amount, e.g. "12.5"; at most 8 decimals. */
  amount: Decimal | string;
  isUndelegate: boolean;
  nonce: number;
  signatureChainId?: `0x${string}`;
}

/** What a caller gives (the client adds the network, the nonce and the signatureChainId). */
export interface TokenDelegateInput {
  validator: string;
  /** HYPE, at most 8 decimals. */
  amount: Decimal | string;
  isUndelegate: boolean;
}

export const tokenDelegateSigning = "user" as const satisfies SigningKind;

export const TokenDelegateEip712 = userSignedType("TokenDelegate", [
  ["string", "hyperliquidChain"],
  ["address", "validator"],
  ["uint64", "wei"],
  ["bool", "isUndelegate"],
  ["uint64", "nonce"],
]);

export const TokenDelegateWire: z.ZodType<TokenDelegateAction> = z.object({
  type: z.literal("tokenDelegate"),
  ...userSignedHeaderWire,
  validator: AddressWire,
  wei: WeiWire,
  isUndelegate: z.boolean(),
  nonce: NonceWire,
});

export function buildTokenDelegate(p: TokenDelegateParams): TokenDelegateAction {
  const issues = new IssueList();
  const header = userSignedHeader(issues, p.network, p.signatureChainId);
  const validator = issues.check(() => normalizeAddress(p.validator, "validator"));
  const wei = weiOf(issues, p.amount);
  checkBool(issues, p.isUndelegate, "isUndelegate");
  checkInt(issues, p.nonce, "nonce", 1);
  issues.throwIfAny();
  return {
    type: "tokenDelegate",
    signatureChainId: header.signatureChainId,
    hyperliquidChain: header.hyperliquidChain,
    validator: validator!,
    wei,
    isUndelegate: p.isUndelegate,
    nonce: p.nonce,
  };
}

export const TokenDelegateResponse = UserSignedResponse;
export type TokenDelegateResponse = UserSignedResponse;

export const tokenDelegate = defineUserSignedAction({
  type: "tokenDelegate",
  signing: tokenDelegateSigning,
  eip712: TokenDelegateEip712,
  build: (input: TokenDelegateInput, env) =>
    buildTokenDelegate({
      ...input,
      network: env.network,
      signatureChainId: env.signatureChainId,
      nonce: env.nonce,
    }),
  wire: TokenDelegateWire,
  response: TokenDelegateResponse,
  parse: parseUserSigned,
});
