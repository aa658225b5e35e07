// The user-signed recipe (the Python SDK's sign_user_signed_action), for tokenDelegate, cDeposit,
// cWithdraw, linkStakingUser, approveAgent, …: EIP-712 of the action's own fields in the `HyperliquidSignTransaction` domain,
// whose chainId is the action's `signatureChainId`. Only the account's own key may sign these; an
// agent's signature recovers to the agent and the venue answers "Must deposit before performing actions".
// The EIP-712 type of each action hlbot sends is in that action's module (src/venue/exchange/actions);
// this module looks them up in the action registry, and knows on its own only the protocol's types
// hlbot does not send (for the published vectors and the simulator).
import { ConfigError, ValidationError } from "../../lib/errors.js";
import {
  EXCHANGE_ACTIONS,
  type ExchangeActionType,
  type UserSignedActionType,
} from "../exchange/actions/index.js";
import {
  domainSeparator,
  type Eip712Field,
  encodeType,
  hashStruct,
  typedDataDigest,
  typeHash,
} from "./eip712.js";
import { type Address, describe } from "./hex.js";
import { recoverDigestSigner, type Signature } from "./recover.js";
import type { Signer } from "./signer.js";
import { parseSignatureChainId, type UserSignedType, userSignedType } from "./userSignedType.js";

export type { Eip712Field } from "./eip712.js";
export { parseSignatureChainId, type UserSignedType, userSignedType } from "./userSignedType.js";

/** User-signed types of the protocol that hlbot does not send: here for the published vectors. */
const OTHER_USER_SIGNED_TYPES = {
  usdSend: userSignedType("UsdSend", [
    ["string", "hyperliquidChain"],
    ["string", "destination"],
    ["string", "amount"],
    ["uint64", "time"],
  ]),
  withdraw3: userSignedType("Withdraw", [
    ["string", "hyperliquidChain"],
    ["string", "destination"],
    ["string", "amount"],
    ["uint64", "time"],
  ]),
};

const REGISTRY_TYPES: Partial<Record<UserSignedActionType, UserSignedType>> = {};
/**
 * Signed values of fields that the wire JSON may omit (an unnamed agent is signed with `agentName: ""`
 * and sent without the key), from each action's module.
 */
const SIGNED_DEFAULTS: Partial<Record<UserSignedKind, Readonly<Record<string, unknown>>>> = {};
for (const def of Object.values(EXCHANGE_ACTIONS)) {
  if (def.signing !== "user") continue;
  REGISTRY_TYPES[def.type] = def.eip712;
  if (def.signedDefaults) SIGNED_DEFAULTS[def.type] = def.signedDefaults;
}

/** EIP-712 types by action `type`: every user-signed action of the registry, then the others. */
export const USER_SIGNED_TYPES = Object.freeze({
  ...(REGISTRY_TYPES as Record<UserSignedActionType, UserSignedType>),
  ...OTHER_USER_SIGNED_TYPES,
});

export type UserSignedKind = keyof typeof USER_SIGNED_TYPES;

export const USER_DOMAIN_NAME = "HyperliquidSignTransaction";
const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

// Both caches are keyed by text the caller controls only through a handful of chain ids and the fixed
// types above, so they stay tiny.
const typeHashes = new Map<string, Uint8Array>();
const domainSeparators = new Map<string, Uint8Array>();

function cachedTypeHash(primaryType: string, fields: readonly Eip712Field[]): Uint8Array {
  const key = encodeType(primaryType, fields);
  let hash = typeHashes.get(key);
  if (!hash) {
    hash = typeHash(primaryType, fields);
    typeHashes.set(key, hash);
  }
  return hash;
}

/** Domain separator of `HyperliquidSignTransaction` for a chain id. */
export function userDomainSeparator(signatureChainId: string): Uint8Array {
  const key = signatureChainId.toLowerCase();
  let sep = domainSeparators.get(key);
  if (!sep) {
    sep = domainSeparator({
      name: USER_DOMAIN_NAME,
      version: "1",
      chainId: parseSignatureChainId(signatureChainId),
      verifyingContract: ZERO_ADDRESS,
    });
    if (domainSeparators.size < 64) domainSeparators.set(key, sep);
  }
  return sep;
}

/**
 * EIP-712 digest of a user-signed action: the fields of `fields`, in that order, taken from `action`;
 * domain chainId = int(action.signatureChainId, 16). Other keys of `action` (`type`, `signatureChainId`)
 * are not signed.
 */
export function userSignedDigest(
  action: Record<string, unknown>,
  primaryType: string,
  fields: readonly Eip712Field[],
): Uint8Array {
  const domainSep = userDomainSeparator(parseSignatureChainIdText(action.signatureChainId));
  const structHash = hashStruct(cachedTypeHash(primaryType, fields), fields, action, "action.");
  return typedDataDigest(domainSep, structHash);
}

function parseSignatureChainIdText(value: unknown): string {
  parseSignatureChainId(value);
  return value as string;
}

export function isUserSignedKind(actionType: unknown): actionType is UserSignedKind {
  return typeof actionType === "string" && Object.hasOwn(USER_SIGNED_TYPES, actionType);
}

function specOf(action: Record<string, unknown>, kind: UserSignedKind): UserSignedType {
  if (!isUserSignedKind(kind)) {
    throw new ValidationError([
      { path: "kind", message: `not a user-signed action type: ${describe(kind)}` },
    ]);
  }
  if (action.type !== undefined && action.type !== kind) {
    throw new ValidationError([
      { path: "action.type", message: `expected ${JSON.stringify(kind)}, got ${describe(action.type)}` },
    ]);
  }
  return USER_SIGNED_TYPES[kind];
}

/** The digest a user-signed action of `kind` covers, with wire-omitted fields filled with their signed defaults. */
export function userSignedActionDigest(action: Record<string, unknown>, kind: UserSignedKind): Uint8Array {
  const spec = specOf(action, kind);
  const defaults = SIGNED_DEFAULTS[kind];
  const message = defaults ? { ...defaults, ...stripUndefined(action) } : action;
  return userSignedDigest(message, spec.primaryType, spec.fields);
}

function stripUndefined(action: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(action)) if (v !== undefined) out[k] = v;
  return out;
}

export async function signUserSignedAction(
  signer: Signer,
  action: Record<string, unknown>,
  kind: UserSignedKind,
): Promise<Signature> {
  return signer.signDigest(userSignedActionDigest(action, kind));
}

export function recoverUserSignedSigner(
  action: Record<string, unknown>,
  kind: UserSignedKind,
  signature: unknown,
): Address {
  return recoverDigestSigner(userSignedActionDigest(action, kind), signature);
}

/** L1 action types of the protocol (phantom-agent recipe) besides those of the registry. */
const OTHER_L1_ACTION_TYPES: ReadonlySet<string> = new Set([
  "order",
  "cancel",
  "cancelByCloid",
  "modify",
  "batchModify",
  "scheduleCancel",
  "updateLeverage",
  "updateIsolatedMargin",
  "createSubAccount",
  "subAccountTransfer",
  "subAccountSpotTransfer",
  "vaultTransfer",
  "noop",
]);

/** Which recipe an action type is signed with, or undefined for a type hlbot does not know how to sign. */
export function signingKindOf(actionType: string): "l1" | "user" | undefined {
  if (Object.hasOwn(EXCHANGE_ACTIONS, actionType))
    return EXCHANGE_ACTIONS[actionType as ExchangeActionType].signing;
  if (isUserSignedKind(actionType)) return "user";
  if (OTHER_L1_ACTION_TYPES.has(actionType)) return "l1";
  return undefined;
}

/**
 * Refuses, before anything is signed, a user-signed action whose signer is not the account: an API
 * wallet (agent) may sign L1 actions for an account but never its transfers, staking or agent approvals.
 */
export function assertSignerIsAccount(signerAddress: string, account: string, actionType: string): void {
  if (signerAddress.toLowerCase() !== account.toLowerCase()) {
    throw new ConfigError(
      `${actionType} must be signed by the account's own key, but the signer ${signerAddress.toLowerCase()} is not the account ${account.toLowerCase()} ` +
        "(an API wallet, or a master's key acting for a sub-account or vault, signs only L1 actions such as twapOrder and twapCancel)",
    );
  }
}
