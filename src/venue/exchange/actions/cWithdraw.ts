// `cWithdraw` (user-signed.5): moves HYPE from the staking balance back to spot through
// the 7-day unstaking queue (at most 5 pending). Needs the account's own key.
import {
  buildStakingTransfer,
  type SigningKind,
  type StakingTransferAction,
  type StakingTransferParams,
  UserSignedResponse,
} from "./common.js";

export type CWithdrawAction = StakingTransferAction<"cWithdraw">;
export type CWithdrawParams = StakingTransferParams;

export const cWithdrawSigning = "user" as const satisfies SigningKind;

export function buildCWithdraw(p: CWithdrawParams): CWithdrawAction {
  return buildStakingTransfer("cWithdraw", p);
}

export const CWithdrawResponse = UserSignedResponse;
export type CWithdrawResponse = UserSignedResponse;
