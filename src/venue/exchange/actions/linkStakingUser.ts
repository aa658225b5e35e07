// `linkStakingUser` (user-signed): links a trading account and a staking
// account, permanently. The trading account sends isFinalize=false naming the staking account; the
// staking account then sends isFinalize=true naming the trading account. Each needs its own key.
import { z } from "zod";
import type { NetworkName } from "../../networks.js";
import { type Address, normalizeAddress } from "../../signing/hex.js";
import { userSignedType } from "../../signing/userSignedType.js";
import {
  AddressWire,
  checkBool,
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

/** What a caller gives (the client adds the network, the nonce and the signatureChainId). */
export interface LinkStakingUserInput {
  user: string;
  isFinalize: boolean;
}

export const linkStakingUserSigning = "user" as const satisfies SigningKind;

export const LinkStakingUserEip712 = userSignedType("LinkStakingUser", [
  ["string", "hyperliquidChain"],
  ["address", "user"],
  ["bool", "isFinalize"],
  ["uint64", "nonce"],
]);

export const LinkStakingUserWire: z.ZodType<LinkStakingUserAction> = z.object({
  type: z.literal("linkStakingUser"),
  ...userSignedHeaderWire,
  user: AddressWire,
  isFinalize: z.boolean(),
  nonce: NonceWire,
});

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

export const linkStakingUser = defineUserSignedAction({
  type: "linkStakingUser",
  signing: linkStakingUserSigning,
  eip712: LinkStakingUserEip712,
  build: (input: LinkStakingUserInput, env) =>
    buildLinkStakingUser({
      ...input,
      network: env.network,
      signatureChainId: env.signatureChainId,
      nonce: env.nonce,
    }),
  wire: LinkStakingUserWire,
  response: LinkStakingUserResponse,
  parse: parseUserSigned,
});
