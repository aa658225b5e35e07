// Every error string the simulated venue answers with, in one table. Strings marked "venue" are the
// real venue's exact wording; the ones marked "invented" have no known real wording
// and are kept here so they can be replaced in one place when the real text is learned. A scenario (or
// `startSimulator({ messages })`) may override any entry.

export interface VenueMessages {
  /** venue; the address is the recovered (wrong) signer. */
  unknownL1Signer: (address: string) => string;
  /** venue; user-signed action from an unknown signer or from an agent. */
  unknownUserSignedSigner: (address: string) => string;
  /** venue */
  duplicateNonce: (nonce: number) => string;
  /** venue wording unconfirmed (third-party). */
  nonceTooLow: (nonce: number, minimum: number) => string;
  /** invented */
  nonceOutOfWindow: (nonce: number, now: number) => string;
  /** venue wording unconfirmed (third-party). */
  actionExpired: string;
  /** invented: user-signed action whose inner nonce/time differs from the outer nonce. */
  innerNonceMismatch: string;
  /** invented */
  wrongChain: (chain: string) => string;
  /** invented: vaultAddress is neither the signer's sub-account nor an account it may trade for. */
  vaultNotAllowed: (vault: string) => string;
  /** invented: a real venue action the simulator does not implement. */
  unsupportedAction: (type: string) => string;

  /** venue */
  invalidTwapDuration: (minutes: number) => string;
  /** venue */
  twapNotFound: string;
  /** invented */
  invalidAsset: (asset: number) => string;
  /** venue (spot order wording), applied per TWAP suborder. */
  twapMinimumValue: (minValue: string, quote: string) => string;
  /**
   * venue: "TWAP order value too small. Min is $100." (a refusal measured on mainnet, recorded by a public
   * client's tests), and the older wording "… Min is $1200, which is $10 per minute." (a public error map).
   */
  twapOrderTooSmall: (min: string, perMinute: string | undefined) => string;
  /** venue */
  invalidSize: string;
  /** venue */
  zeroSize: string;
  /** venue */
  insufficientSpotBalance: string;
  /** invented: spot TWAPs cannot be reduce-only (unconfirmed). */
  spotReduceOnly: string;
  /** invented */
  triggerTwapUnsupported: string;

  /** invented */
  insufficientSpotForDeposit: string;
  /** invented */
  insufficientStakingBalance: string;
  /** invented */
  insufficientDelegation: string;
  /** invented */
  delegationLocked: (until: number) => string;
  /** invented */
  unknownValidator: (validator: string) => string;
  /** invented */
  validatorJailed: (validator: string) => string;
  /** invented */
  tooManyPendingWithdrawals: (max: number) => string;
  /** invented */
  zeroAmount: string;
  /** venue */
  stakingLinkError: string;
  /** invented */
  agentIsUser: string;
  /** invented */
  tooManyAgents: string;
  /** invented */
  invalidAgentName: string;
  /** explorer envelope message for an unknown hash (invented wording). */
  unknownTxHash: (hash: string) => string;
}

export const DEFAULT_MESSAGES: VenueMessages = {
  unknownL1Signer: (a) => `User or API Wallet ${a} does not exist.`,
  unknownUserSignedSigner: (a) => `Must deposit before performing actions. User: ${a}`,
  duplicateNonce: (n) => `Invalid nonce: duplicate nonce ${n}`,
  nonceTooLow: (n, min) => `Invalid nonce: nonce too low ${n} < ${min}`,
  nonceOutOfWindow: (n, now) => `Invalid nonce: nonce ${n} is too far from the current time ${now}`,
  actionExpired: "Action already expired",
  innerNonceMismatch: "Invalid nonce: action nonce does not match the request nonce",
  wrongChain: (c) => `Invalid hyperliquidChain: ${c}`,
  vaultNotAllowed: (v) => `Vault not registered: ${v}`,
  unsupportedAction: (t) => `Action ${t} is not supported by the simulated venue`,

  invalidTwapDuration: (m) => `Invalid TWAP duration: ${m} min(s)`,
  twapNotFound: "TWAP was never placed, already canceled, or filled.",
  invalidAsset: (a) => `Invalid asset: ${a}`,
  twapMinimumValue: (v, q) => `Order must have minimum value of ${v} ${q}.`,
  twapOrderTooSmall: (min, perMinute) =>
    `TWAP order value too small. Min is $${min}${perMinute === undefined ? "" : `, which is $${perMinute} per minute`}.`,
  invalidSize: "Order has invalid size",
  zeroSize: "Order has zero size.",
  insufficientSpotBalance: "Order has insufficient spot balance to trade",
  spotReduceOnly: "Reduce only is not supported for spot TWAP orders.",
  triggerTwapUnsupported: "Trigger and stop TWAP orders are not supported by the simulated venue.",

  insufficientSpotForDeposit: "Insufficient spot balance for staking deposit",
  insufficientStakingBalance: "Insufficient undelegated staking balance",
  insufficientDelegation: "Insufficient delegated stake to undelegate",
  delegationLocked: (until) => `Delegation is locked until ${until}`,
  unknownValidator: (v) => `Unknown validator ${v}`,
  validatorJailed: (v) => `Validator ${v} is jailed`,
  tooManyPendingWithdrawals: (max) => `Too many pending withdrawals (maximum ${max})`,
  zeroAmount: "Amount must be positive",
  stakingLinkError: "Staking link error",
  agentIsUser: "Agent address is already a user",
  tooManyAgents: "Too many API wallets",
  invalidAgentName: "Invalid agent name",
  unknownTxHash: (h) => `unknown transaction hash: ${h}`,
};

/** Overrides accepted from a scenario or options: plain strings; `{…}` placeholders are substituted. */
export type MessageOverrides = Partial<Record<keyof VenueMessages, string>>;

/**
 * Applies string overrides. Placeholders: `{address}`, `{nonce}`, `{minimum}`, `{now}`, `{chain}`,
 * `{vault}`, `{type}`, `{minutes}`, `{asset}`, `{minValue}`, `{quote}`, `{until}`, `{validator}`,
 * `{max}`, `{hash}`, in the order of the original function's parameters.
 */
export function withOverrides(overrides: MessageOverrides | undefined): VenueMessages {
  if (!overrides) return DEFAULT_MESSAGES;
  const out: Record<string, unknown> = { ...DEFAULT_MESSAGES };
  for (const [key, template] of Object.entries(overrides)) {
    if (template === undefined) continue;
    const original = (DEFAULT_MESSAGES as unknown as Record<string, unknown>)[key];
    if (typeof original === "function") {
      out[key] = (...args: unknown[]) => {
        let i = 0;
        return template.replace(/\{[a-zA-Z]+\}/g, (m) => (i < args.length ? String(args[i++]) : m));
      };
    } else {
      out[key] = template;
    }
  }
  return out as unknown as VenueMessages;
}

export const MESSAGE_KEYS = Object.keys(DEFAULT_MESSAGES) as (keyof VenueMessages)[];
