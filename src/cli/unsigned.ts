// What dry runs and `plan` print by default: the request WITHOUT its signature (issue #17.6). A signed
// body is a live order: anyone who has it can POST it to the venue, no key needed, until its nonce is
// used or it expires. So the default output is the action, the nonce (and expiresAfter/vaultAddress for
// L1 actions) and the 32-byte digest a key would sign; `--sign` prints the signed body instead, with a
// warning in words on stderr.
import type { NetworkName } from "../venue/networks.js";
import { actionDigest } from "../venue/signing/index.js";

/** The stderr warning printed whenever a signed body is printed (`--sign`). */
export const SIGNED_OUTPUT_WARNING =
  "WARNING: the output holds a SIGNED request: anyone who has it can send it to the venue and execute it, without your key, until its nonce is used or it expires. Do not share or store it.";

export interface UnsignedView {
  unsigned: true;
  action: Record<string, unknown>;
  nonce: number;
  vaultAddress?: string;
  expiresAfter?: number;
  /** 0x-hex of the digest the signer would sign for this request (EIP-712). */
  digest: string;
}

/** A request body (signed or not) as an unsigned view: the signature removed, the digest added. */
export function unsignedView(body: Record<string, unknown>, network: NetworkName): UnsignedView {
  const action = body.action as Record<string, unknown>;
  const nonce = body.nonce as number;
  const vaultAddress = typeof body.vaultAddress === "string" ? body.vaultAddress : undefined;
  const expiresAfter = typeof body.expiresAfter === "number" ? body.expiresAfter : undefined;
  const digest = actionDigest({
    action,
    nonce,
    network,
    ...(vaultAddress === undefined ? {} : { vaultAddress }),
    ...(expiresAfter === undefined ? {} : { expiresAfter }),
  });
  return {
    unsigned: true,
    action,
    nonce,
    ...(vaultAddress === undefined ? {} : { vaultAddress }),
    ...(expiresAfter === undefined ? {} : { expiresAfter }),
    digest: `0x${Buffer.from(digest).toString("hex")}`,
  };
}

/**
 * Replaces the signed bodies of a cycle report's dry-run actions (and the bare ones of unsigned plans)
 * by their unsigned views, in place, before the report is printed.
 */
export function unsignReportActions(
  actions: ReadonlyArray<{ outcome: string; request: Record<string, unknown> }>,
  network: NetworkName,
): void {
  for (const action of actions) {
    if ((action.outcome === "dry-run" || action.outcome === "unsigned") && "action" in action.request)
      (action as { request: Record<string, unknown> }).request = { ...unsignedView(action.request, network) };
  }
}
