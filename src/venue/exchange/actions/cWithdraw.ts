// `cWithdraw` (user-signed, reference §4.5): moves HYPE from the staking balance back to spot through
// the 7-day unstaking queue (at most 5 pending). Needs the account's own key.
import type { Decimal } from "../../../lib/decimal.js";
import type { NetworkName } from "../../networks.js";
import {
  checkInt,
  IssueList,
  type SigningKind,
  type UserSignedHeader,
  UserSignedResponse,
  userSignedHeader,
  weiOf,
} from "./common.js";

export interface CWithdrawAction extends UserSignedHeader {
  type: "cWithdraw";
  /** HYPE × 10^8; a bigint only beyond 2^53 − 1. */
  wei: number | bigint;
  nonce: number;
}

export interface CWithdrawParams {
  network: NetworkName;
  /** HYPE amount, e.g. "12.5"; at most 8 decimals. */
  amount: Decimal | string;
  nonce: number;
  signatureChainId?: `0x${string}`;
}

export const cWithdrawSigning = "user" as const satisfies SigningKind;

export function buildCWithdraw(p: CWithdrawParams): CWithdrawAction {
  const issues = new IssueList();
  const header = userSignedHeader(issues, p.network, p.signatureChainId);
  const wei = weiOf(issues, p.amount);
  checkInt(issues, p.nonce, "nonce", 1);
  issues.throwIfAny();
  return {
    type: "cWithdraw",
    signatureChainId: header.signatureChainId,
    hyperliquidChain: header.hyperliquidChain,
    wei,
    nonce: p.nonce,
  };
}

export const CWithdrawResponse = UserSignedResponse;
export type CWithdrawResponse = UserSignedResponse;
