// What a key may do for the configured account, found out before anything is signed.
//
// The venue knows four ways a key can act for an account (userRole.19; "Nonces and API
// wallets" in the venue's docs: "A master account can approve API wallets to sign on behalf of the
// master account or any of the sub-accounts"):
// - own:        the key is the account's own key. Every action.
// - agent:      the key is an API wallet of the account. L1 actions only (twapOrder, twapCancel); a
//               user-signed action would recover to the agent and act for nobody.
// - subAccount: the account is a sub-account whose master is the key's account (the key itself, or
//               the master of the API wallet the key is). L1 actions carry `vaultAddress` = the
//               sub-account, and that address is part of the signed hash (see ../signing/l1.ts);
//               without it the venue would execute them on the master. User-signed actions cannot
//               be signed for a sub-account: it has no key, and these carry no vaultAddress.
// - vault:      the account is a vault. L1 actions carry `vaultAddress`; whether the key's account
//               leads the vault is the venue's to check (userRole does not name the leader).
// Anything else (the account is someone else's, an API wallet, another master's sub-account, or the
// key is an API wallet acting for some other account) is refused with a ConfigError: exit code 2.
import { ConfigError } from "../../lib/errors.js";
import type { UserRoleResponse } from "../info/methods/userRole.js";
import { type Address, normalizeAddress } from "../signing/hex.js";

export type Authority =
  | { kind: "own"; signer: Address; account: Address }
  | { kind: "agent"; signer: Address; account: Address }
  | {
      kind: "subAccount" | "vault";
      signer: Address;
      account: Address;
      /** The account the key signs as: the signer, or the master that approved it as an API wallet. */
      principal: Address;
      /** Carried by (and hashed into) every L1 action: the account. */
      vaultAddress: Address;
    };

/** The one read this needs. */
export interface UserRoleReader {
  userRole(params: { user: string }, signal?: AbortSignal): Promise<UserRoleResponse>;
}

/** When the account is not the key's own, asks the venue for the role of both and decides. */
export async function resolveAuthority(
  info: UserRoleReader,
  signerAddress: string,
  accountAddress: string,
  signal?: AbortSignal,
): Promise<Authority> {
  const signer = normalizeAddress(signerAddress, "signer");
  const account = normalizeAddress(accountAddress, "account");
  // A key acting as its own account needs no question (and costs no request: a daemon opens while the
  // venue is down). Whether it is an API wallet is asked by checkOwnKey where the venue is read anyway.
  if (account === signer) return { kind: "own", signer, account };
  const [signerRole, accountRole] = await Promise.all([
    info.userRole({ user: signer }, signal),
    info.userRole({ user: account }, signal),
  ]);
  return decideAuthority(signer, signerRole, account, accountRole);
}

/**
 * For a key acting as its own account: refuses an API wallet (ConfigError naming its master). Its own
 * address holds nothing, and a bot whose `account` was left empty (init's `${HLBOT_ACCOUNT:-}` unset
 * under cron) skipped every run for "no USDC available" with exit 0 (a multi-account trial).
 */
export async function checkOwnKey(
  info: UserRoleReader,
  signerAddress: string,
  signal?: AbortSignal,
): Promise<void> {
  const signer = normalizeAddress(signerAddress, "signer");
  decideAuthority(signer, await info.userRole({ user: signer }, signal), signer, undefined);
}

/** The decision of resolveAuthority from the two userRole answers (pure, for tests). */
export function decideAuthority(
  signer: Address,
  signerRole: UserRoleResponse,
  account: Address,
  accountRole: UserRoleResponse | undefined,
): Authority {
  const refuse = (why: string): never => {
    throw new ConfigError(`the key ${signer} cannot act for ${account}: ${why}`, { keyPath: "account" });
  };
  const master =
    signerRole.role === "agent" ? normalizeAddress(roleData(signerRole).user, "master") : undefined;
  if (account === signer) {
    if (master !== undefined)
      refuse(
        `the key is an API wallet of ${master}; set \`account: ${master}\` (or --account) to act for it`,
      );
    return { kind: "own", signer, account };
  }
  if (master === account) return { kind: "agent", signer, account };
  const principal = master ?? signer;
  const described = master === undefined ? `the key's own account ${signer}` : `its master ${master}`;
  switch (accountRole?.role) {
    case "subAccount": {
      const owner = normalizeAddress(roleData(accountRole).master, "master");
      if (owner !== principal) refuse(`it is a sub-account of ${owner}, not of ${described}`);
      return { kind: "subAccount", signer, account, principal, vaultAddress: account };
    }
    case "vault":
      return { kind: "vault", signer, account, principal, vaultAddress: account };
    case "agent":
      return refuse(
        `${account} is an API wallet (of ${roleData(accountRole).user}), not an account; set \`account\` to the account it trades for`,
      );
    case "user":
      return refuse(
        master === undefined
          ? `the key is neither ${account}'s own key nor one of its API wallets (approve it as an API wallet of that account in the venue's app, or set \`account\` to a sub-account of ${signer})`
          : `the key is an API wallet of ${master}, and ${account} is neither that account nor one of its sub-accounts`,
      );
    default:
      return refuse(
        `the venue does not know ${account} (userRole: missing)${master === undefined && signerRole.role === "missing" ? `, nor the key ${signer}` : ""}`,
      );
  }
}

/** One line for logs and plan headers: how the key acts for the account. */
export function describeAuthority(a: Authority): string {
  switch (a.kind) {
    case "own":
      return `signing as ${a.account}`;
    case "agent":
      return `API wallet ${a.signer} of ${a.account}`;
    case "subAccount":
    case "vault":
      return `${a.signer === a.principal ? a.signer : `API wallet ${a.signer} of ${a.principal}`} for ${a.kind === "vault" ? "vault" : "sub-account"} ${a.account} (vaultAddress)`;
  }
}

/**
 * The payload of a known "agent" or "subAccount" role. userRole's schema also accepts roles it does not
 * know (kept as a string), which hides the discriminant from TypeScript; the schema has already checked
 * that these two roles carry their address.
 */
/**
 * The master of `address` when it is an API wallet (userRole "agent"), else undefined: a read-only view
 * of a key's account shows its master's (a go-live trial: `status` with an API wallet's key and no
 * `account:` showed the agent's empty account, "Running TWAPs: none", while the master's ran).
 */
export async function masterOfAgent(info: UserRoleReader, address: string): Promise<string | undefined> {
  const role = await info.userRole({ user: normalizeAddress(address, "signer") });
  return role.role === "agent" ? normalizeAddress(roleData(role).user, "master") : undefined;
}

/** The data of a userRole answer (master of a sub-account, user of an API wallet), empty when none. */
export function roleData(
  role: UserRoleResponse,
): { user?: string; master?: string } & Record<string, string> {
  return (role as { data?: Record<string, string> }).data ?? {};
}
