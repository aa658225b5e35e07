// `approveAgent` (user-signed): registers an API wallet that may sign L1
// actions for the account. An unnamed agent is signed with agentName "" and sent without the key;
// the signing code fills that default back in, so the wire action and its signature agree.
import type { NetworkName } from "../../networks.js";
import { type Address, describe, normalizeAddress } from "../../signing/hex.js";
import {
  checkInt,
  IssueList,
  type SigningKind,
  type UserSignedHeader,
  UserSignedResponse,
  userSignedHeader,
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

export const approveAgentSigning = "user" as const satisfies SigningKind;

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
