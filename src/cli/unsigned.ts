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

/** What replaces a sent request's signature in printed output. */
export const SIGNATURE_NOT_SHOWN = "(not shown: the journal keeps the signed body)";

/**
 * A sent request as printed: its action, nonce and the rest, without the signature. A log is often
 * shipped elsewhere, and a signed body whose outcome is unknown is a live order anyone holding it could
 * send (the journal keeps the signed body).
 */
export function withoutSignature(request: Record<string, unknown>): Record<string, unknown> {
  if (!("signature" in request)) return request;
  const { signature: _signature, ...rest } = request;
  return { ...rest, signature: SIGNATURE_NOT_SHOWN };
}

/** withoutSignature on each action of a live cycle report, in place, before it is printed. */
export function unsignSentActions(actions: ReadonlyArray<{ request: Record<string, unknown> }>): void {
  for (const action of actions)
    (action as { request: Record<string, unknown> }).request = withoutSignature(action.request);
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
