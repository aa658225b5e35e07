// The registry of /exchange actions hlbot sends. Each action is one module of this folder holding
// everything about it (its input and builder, signing kind and EIP-712 type, wire schema, answer
// schema and reader) and exporting it as one definition; this registry lists the definitions. The
// exchange client, the signing code and the engine's reconciler look actions up here by `type`, and
// every type below (ExchangeAction, ExchangeCall in ../client.ts, …) is derived from it.
// Adding an action: a new module exporting `define…Action({...})`, and one line here.
import type { z } from "zod";
import type { Answer } from "../submit.js";
import { approveAgent } from "./approveAgent.js";
import { cDeposit } from "./cDeposit.js";
import type { ActionDef } from "./common.js";
import { cWithdraw } from "./cWithdraw.js";
import { linkStakingUser } from "./linkStakingUser.js";
import { tokenDelegate } from "./tokenDelegate.js";
import { twapCancel } from "./twapCancel.js";
import { twapOrder } from "./twapOrder.js";

export * from "./approveAgent.js";
export * from "./cDeposit.js";
export * from "./common.js";
export * from "./cWithdraw.js";
export * from "./linkStakingUser.js";
export * from "./tokenDelegate.js";
export * from "./twapCancel.js";
export * from "./twapOrder.js";

/** Every action hlbot builds, by its wire `type`. */
export const EXCHANGE_ACTIONS = Object.freeze({
  twapOrder,
  twapCancel,
  tokenDelegate,
  linkStakingUser,
  cDeposit,
  cWithdraw,
  approveAgent,
});

type Registry = typeof EXCHANGE_ACTIONS;
// Each definition is listed under its own type.
EXCHANGE_ACTIONS satisfies { [T in keyof Registry]: { type: T } };

export type ExchangeActionType = keyof Registry;
/** What the caller gives for an action (the client adds network, nonce and signatureChainId). */
export type ActionInput<T extends ExchangeActionType> = Parameters<Registry[T]["build"]>[0];
/** The wire action of a type. */
export type ActionOf<T extends ExchangeActionType> = ReturnType<Registry[T]["build"]>;
/** What an accepted action of a type returns. */
export type ActionDataOf<T extends ExchangeActionType> =
  ReturnType<Registry[T]["parse"]> extends Answer<infer D> ? D : never;
type ResponseOf<T extends ExchangeActionType> = Registry[T]["response"];

export type L1ActionType = {
  [T in ExchangeActionType]: Registry[T]["signing"] extends "l1" ? T : never;
}[ExchangeActionType];
export type UserSignedActionType = Exclude<ExchangeActionType, L1ActionType>;
export type L1Action = ActionOf<L1ActionType>;
export type UserSignedAction = ActionOf<UserSignedActionType>;
export type ExchangeAction = ActionOf<ExchangeActionType>;

/** One action's definition with its types spelled out by `T`, for code generic over the action type. */
export type ActionDefOf<T extends ExchangeActionType> = ActionDef<
  T,
  ActionInput<T>,
  ActionOf<T>,
  ActionDataOf<T>,
  ResponseOf<T>
>;

/** The registry seen through ActionDefOf, so that `actionDef(call.type).build(call.params, …)` type-checks. */
const ACTION_DEFS: { readonly [T in ExchangeActionType]: ActionDefOf<T> } = EXCHANGE_ACTIONS;

/** The definition of an action type. */
export function actionDef<T extends ExchangeActionType>(type: T): ActionDefOf<T> {
  return ACTION_DEFS[type];
}

/** Whether `type` is an action hlbot builds (an own key of the registry, so never "toString"). */
export function isExchangeActionType(type: unknown): type is ExchangeActionType {
  return typeof type === "string" && Object.hasOwn(EXCHANGE_ACTIONS, type);
}

/** The wire schema of an action type: what a journaled request's action is read back through. */
export function wireSchemaOf<T extends ExchangeActionType>(type: T): z.ZodType<ActionOf<T>> {
  return ACTION_DEFS[type].wire;
}
