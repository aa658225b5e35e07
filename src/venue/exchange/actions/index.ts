// The /exchange actions hlbot sends, one module each; this index gathers their types, signing kinds and
// response schemas so the exchange client and the simulator can look them up by `type`.
import { type ApproveAgentAction, ApproveAgentResponse, approveAgentSigning } from "./approveAgent.js";
import { type CDepositAction, CDepositResponse, cDepositSigning } from "./cDeposit.js";
import { type CWithdrawAction, CWithdrawResponse, cWithdrawSigning } from "./cWithdraw.js";
import {
  type LinkStakingUserAction,
  LinkStakingUserResponse,
  linkStakingUserSigning,
} from "./linkStakingUser.js";
import { type TokenDelegateAction, TokenDelegateResponse, tokenDelegateSigning } from "./tokenDelegate.js";
import { type TwapCancelAction, TwapCancelResponse, twapCancelSigning } from "./twapCancel.js";
import { type TwapOrderAction, TwapOrderResponse, twapOrderSigning } from "./twapOrder.js";

export * from "./approveAgent.js";
export * from "./cDeposit.js";
export * from "./common.js";
export * from "./cWithdraw.js";
export * from "./linkStakingUser.js";
export * from "./tokenDelegate.js";
export * from "./twapCancel.js";
export * from "./twapOrder.js";

export type L1Action = TwapOrderAction | TwapCancelAction;
export type UserSignedAction =
  | TokenDelegateAction
  | LinkStakingUserAction
  | CDepositAction
  | CWithdrawAction
  | ApproveAgentAction;
export type ExchangeAction = L1Action | UserSignedAction;
export type ExchangeActionType = ExchangeAction["type"];

/** Signing recipe and response schema of every action hlbot builds. */
export const EXCHANGE_ACTIONS = {
  twapOrder: { signing: twapOrderSigning, response: TwapOrderResponse },
  twapCancel: { signing: twapCancelSigning, response: TwapCancelResponse },
  tokenDelegate: { signing: tokenDelegateSigning, response: TokenDelegateResponse },
  linkStakingUser: { signing: linkStakingUserSigning, response: LinkStakingUserResponse },
  cDeposit: { signing: cDepositSigning, response: CDepositResponse },
  cWithdraw: { signing: cWithdrawSigning, response: CWithdrawResponse },
  approveAgent: { signing: approveAgentSigning, response: ApproveAgentResponse },
} as const satisfies Record<ExchangeActionType, unknown>;
