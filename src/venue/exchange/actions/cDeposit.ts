// `cDeposit` (user-signed.5): moves HYPE from the spot balance to the staking balance
// (instant). Needs the account's own key.
import {
  buildStakingTransfer,
  type SigningKind,
  type StakingTransferAction,
  type StakingTransferParams,
  UserSignedResponse,
} from "./common.js";

export type CDepositAction = StakingTransferAction<"cDeposit">;
export type CDepositParams = StakingTransferParams;

export const cDepositSigning = "user" as const satisfies SigningKind;

export function buildCDeposit(p: CDepositParams): CDepositAction {
  return buildStakingTransfer("cDeposit", p);
}

export const CDepositResponse = UserSignedResponse;
export type CDepositResponse = UserSignedResponse;
