// `tokenDelegate` (user-signed.5): delegates HYPE from the staking balance to a validator,
// or undelegates it. Needs the account's own key; an agent's signature is refused by the venue.
import type { Decimal } from "../../../lib/decimal.js";
import type { NetworkName } from "../../networks.js";
import { type Address, normalizeAddress } from "../../signing/hex.js";
import {
  checkBool,
  checkInt,
  IssueList,
  type SigningKind,
  type UserSignedHeader,
  UserSignedResponse,
  userSignedHeader,
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

export const tokenDelegateSigning = "user" as const satisfies SigningKind;

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
