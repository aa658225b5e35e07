// `cDeposit` (user-signed): moves HYPE from the spot balance to the staking balance
// (instant). Needs the account's own key.
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

export type CDepositAction = StakingTransferAction<"cDeposit">;
export type CDepositParams = StakingTransferParams;

export const cDepositSigning = "user" as const satisfies SigningKind;

export const CDepositEip712 = userSignedType("CDeposit", [
  ["string", "hyperliquidChain"],
  ["uint64", "wei"],
  ["uint64", "nonce"],
]);

export function buildCDeposit(p: CDepositParams): CDepositAction {
  return buildStakingTransfer("cDeposit", p);
}

export const CDepositWire = stakingTransferWire("cDeposit");

export const CDepositResponse = UserSignedResponse;
export type CDepositResponse = UserSignedResponse;

export const cDeposit = defineUserSignedAction({
  type: "cDeposit",
  signing: cDepositSigning,
  eip712: CDepositEip712,
  build: (input: StakingAmountInput, env) =>
    buildCDeposit({
      ...input,
      network: env.network,
      signatureChainId: env.signatureChainId,
      nonce: env.nonce,
    }),
  wire: CDepositWire,
  response: CDepositResponse,
  parse: parseUserSigned,
});
