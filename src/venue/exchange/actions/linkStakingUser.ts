// `linkStakingUser` (user-signed): links a trading account and a staking
// account, permanently. The trading account sends isFinalize=false naming the staking account; the
// staking account then sends isFinalize=true naming the trading account. Each needs its own key.
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
} from "./common.js";

export interface LinkStakingUserAction extends UserSignedHeader {
  type: "linkStakingUser";
  user: Address;
  isFinalize: boolean;
  nonce: number;
}

export interface LinkStakingUserParams {
  network: NetworkName;
  /** The other side of the link: the staking account (request) or the trading account (finalize). */
  user: string;
  isFinalize: boolean;
  nonce: number;
  signatureChainId?: `0x${string}`;
}

export const linkStakingUserSigning = "user" as const satisfies SigningKind;

export function buildLinkStakingUser(p: LinkStakingUserParams): LinkStakingUserAction {
  const issues = new IssueList();
  const header = userSignedHeader(issues, p.network, p.signatureChainId);
  const user = issues.check(() => normalizeAddress(p.user, "user"));
  checkBool(issues, p.isFinalize, "isFinalize");
  checkInt(issues, p.nonce, "nonce", 1);
  issues.throwIfAny();
  return {
    type: "linkStakingUser",
    signatureChainId: header.signatureChainId,
    hyperliquidChain: header.hyperliquidChain,
    user: user!,
    isFinalize: p.isFinalize,
    nonce: p.nonce,
  };
}

export const LinkStakingUserResponse = UserSignedResponse;
export type LinkStakingUserResponse = UserSignedResponse;
