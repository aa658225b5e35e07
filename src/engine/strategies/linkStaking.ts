// link-staking: ask for (trading account, finalize: false) or accept (staking account, finalize: true) a
// staking link with `counterparty`, once. The link is permanent and hands the staking account control
// of the trading account's funds, so anything but the exact expected state is a skip, never a retry.
import * as z from "zod";
import { address, isPlaceholderAddress } from "../config/fields.js";
import type { LinkStakingUserIntent } from "../intents.js";
import { skip } from "./common.js";
import { defineStrategy } from "./types.js";

export const linkStakingParams = z.strictObject({
  counterparty: address().describe(
    "With finalize: false, the staking account to link to; with finalize: true, the trading account that asked",
  ),
  finalize: z
    .boolean()
    .default(false)
    .describe("false: this (trading) account proposes the link; true: this (staking) account finalizes it"),
});

export type LinkStakingParams = z.output<typeof linkStakingParams>;

export const linkStaking = defineStrategy({
  description: "Propose or finalize a permanent staking link with another account, once",
  paramsSchema: linkStakingParams,
  reads: ["fees"],
  decide(snapshot, params, _now, _memory, name) {
    const considered = "linkStakingUser" as const;
    const other = params.counterparty;
    if (other === snapshot.account.toLowerCase()) {
      return [skip(name, "counterparty is this account itself", considered)];
    }
    if (isPlaceholderAddress(other)) {
      return [
        skip(
          name,
          `counterparty ${other} is a placeholder, not an account (the shipped example's default when STAKING_ACCOUNT is not set): a link is permanent, so nothing is sent until it names the real account`,
          considered,
        ),
      ];
    }
    const link = snapshot.stakingLink;
    if (link?.type === "unknown") {
      return [
        skip(
          name,
          `the venue reports a staking link of a kind hlbot does not know ("${link.venueType}"${link.peer ? ` with ${link.peer}` : ""}); links are permanent, not touching it`,
          considered,
        ),
      ];
    }
    if (link !== null) {
      const peer = (link.type === "stakingUser" ? link.tradingUser : link.stakingUser).toLowerCase();
      const state =
        link.type === "requested"
          ? `a link to staking account ${peer} is already requested`
          : link.type === "tradingUser"
            ? `already linked to staking account ${peer}`
            : `already linked to trading account ${peer}`;
      const done = peer === other;
      return [
        skip(
          name,
          done ? `nothing to do: ${state}` : `${state}; links are permanent, not touching it`,
          considered,
        ),
      ];
    }
    const intent: LinkStakingUserIntent = params.finalize
      ? {
          kind: "linkStakingUser",
          strategy: name,
          user: other,
          isFinalize: true,
          reason: `finalize the staking link requested by trading account ${other} (permanent)`,
        }
      : {
          kind: "linkStakingUser",
          strategy: name,
          user: other,
          isFinalize: false,
          reason: `request a staking link to staking account ${other} (permanent once finalized)`,
        };
    return [intent];
  },
});
