// `cWithdraw` (user-signed): moves HYPE from the staking balance back to spot through
// the 7-day unstaking queue (at most 5 pending). Needs the account's own key.
import { userSignedType } from "../../signing/userSignedType.js";
import {
  buildStakingTransfer,
  defineUserSignedAction,
  parseUserSigned,
  type SigningKind,
  type StakingAmountInput,
  type StakingTransferAction,
  type StakingTransferParams,
  stakingTransferWire,
  UserSignedResponse,
} from "./common.js";

export type CWithdrawAction = StakingTransferAction<"cWithdraw">;
export type CWithdrawParams = StakingTransferParams;

export const cWithdrawSigning = "user" as const satisfies SigningKind;

export const CWithdrawEip712 = userSignedType("CWithdraw", [
  ["string", "hyperliquidChain"],
  ["uint64", "wei"],
  ["uint64", "nonce"],
]);

export function buildCWithdraw(p: CWithdrawParams): CWithdrawAction {
  return buildStakingTransfer("cWithdraw", p);
}

export const CWithdrawWire = stakingTransferWire("cWithdraw");

export const CWithdrawResponse = UserSignedResponse;
export type CWithdrawResponse = UserSignedResponse;

export const cWithdraw = defineUserSignedAction({
  type: "cWithdraw",
  signing: cWithdrawSigning,
  eip712: CWithdrawEip712,
  build: (input: StakingAmountInput, env) =>
    buildCWithdraw({
      ...input,
      network: env.network,
      signatureChainId: env.signatureChainId,
      nonce: env.nonce,
    }),
  wire: CWithdrawWire,
  response: CWithdrawResponse,
  parse: parseUserSigned,
});
