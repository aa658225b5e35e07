// `approveAgent` (user-signed): registers an API wallet that may sign L1
// actions for the account. An unnamed agent is signed with agentName "" and sent without the key;
// the signing code fills that default back in, so the wire action and its signature agree.
import { z } from "zod";
import type { NetworkName } from "../../networks.js";
import { type Address, describe, normalizeAddress } from "../../signing/hex.js";
import { userSignedType } from "../../signing/userSignedType.js";
import {
  AddressWire,
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
} from "./common.js";

export interface ApproveAgentAction extends UserSignedHeader {
  type: "approveAgent";
  agentAddress: Address;
  /** Absent for the unnamed agent (signed as ""). May carry the suffix " valid_until <ms>". */
  agentName?: string;
  nonce: number;
}

export interface ApproveAgentParams {
  network: NetworkName;
  agentAddress: string;
  /** Omit (or "") for the account's single unnamed agent. */
  agentName?: string;
  nonce: number;
  signatureChainId?: `0x${string}`;
}

/** What a caller gives (the client adds the network, the nonce and the signatureChainId). */
export interface ApproveAgentInput {
  agentAddress: string;
  agentName?: string;
}

export const approveAgentSigning = "user" as const satisfies SigningKind;

export const ApproveAgentEip712 = userSignedType("ApproveAgent", [
  ["string", "hyperliquidChain"],
  ["address", "agentAddress"],
  ["string", "agentName"],
  ["uint64", "nonce"],
]);

/** An unnamed agent is signed with `agentName: ""` and sent without the key. */
export const APPROVE_AGENT_SIGNED_DEFAULTS = Object.freeze({ agentName: "" });

export const ApproveAgentWire: z.ZodType<ApproveAgentAction> = z.object({
  type: z.literal("approveAgent"),
  ...userSignedHeaderWire,
  agentAddress: AddressWire,
  agentName: z.string().optional(),
  nonce: NonceWire,
});

export function buildApproveAgent(p: ApproveAgentParams): ApproveAgentAction {
  const issues = new IssueList();
  const header = userSignedHeader(issues, p.network, p.signatureChainId);
  const agentAddress = issues.check(() => normalizeAddress(p.agentAddress, "agentAddress"));
  if (p.agentName !== undefined && typeof p.agentName !== "string") {
    issues.add("agentName", `expected a string, got ${describe(p.agentName)}`);
  }
  checkInt(issues, p.nonce, "nonce", 1);
  issues.throwIfAny();
  const base = {
    type: "approveAgent" as const,
    signatureChainId: header.signatureChainId,
    hyperliquidChain: header.hyperliquidChain,
    agentAddress: agentAddress!,
  };
  return p.agentName ? { ...base, agentName: p.agentName, nonce: p.nonce } : { ...base, nonce: p.nonce };
}

export const ApproveAgentResponse = UserSignedResponse;
export type ApproveAgentResponse = UserSignedResponse;

export const approveAgent = defineUserSignedAction({
  type: "approveAgent",
  signing: approveAgentSigning,
  eip712: ApproveAgentEip712,
  signedDefaults: APPROVE_AGENT_SIGNED_DEFAULTS,
  build: (input: ApproveAgentInput, env) =>
    buildApproveAgent({
      ...input,
      network: env.network,
      signatureChainId: env.signatureChainId,
      nonce: env.nonce,
    }),
  wire: ApproveAgentWire,
  response: ApproveAgentResponse,
  parse: parseUserSigned,
});
