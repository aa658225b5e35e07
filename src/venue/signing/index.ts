// One entry point for signing any /exchange action: picks the recipe from the action's `type`, and
// refuses the combinations the venue does not accept (vault or expiry on a user-signed action, an inner
// nonce that differs from the request nonce) before anything is signed.
import { ValidationError } from "../../lib/errors.js";
import type { NetworkName } from "../networks.js";
import type { Address } from "./hex.js";
import { l1ActionDigest } from "./l1.js";
import { recoverDigestSigner, type Signature } from "./recover.js";
import type { Signer } from "./signer.js";
import { isUserSignedKind, signingKindOf, userSignedActionDigest } from "./userSigned.js";

export * from "./l1.js";
export { parseSignature, recoverDigestSigner, type Signature } from "./recover.js";
export * from "./signer.js";
export * from "./userSigned.js";

export interface ActionSigningParams {
  action: Record<string, unknown>;
  nonce: number;
  network: NetworkName;
  /** L1 only. */
  vaultAddress?: string | null;
  /** L1 only. */
  expiresAfter?: number | null;
}

/** The 32-byte digest the signature of this request covers, whichever recipe its action uses. */
export function actionDigest(p: ActionSigningParams): Uint8Array {
  const type = p.action.type;
  const kind = typeof type === "string" ? signingKindOf(type) : undefined;
  if (kind === "l1") return l1ActionDigest(p);
  if (kind === "user" && isUserSignedKind(type)) {
    if (p.vaultAddress != null || p.expiresAfter != null) {
      throw new ValidationError([
        {
          path: p.vaultAddress != null ? "vaultAddress" : "expiresAfter",
          message: `not supported on the user-signed action ${type}`,
        },
      ]);
    }
    const inner = "nonce" in p.action ? p.action.nonce : p.action.time;
    if (inner !== p.nonce) {
      throw new ValidationError([
        {
          path: "nonce",
          message: `the action's own nonce (${String(inner)}) must equal the request nonce (${p.nonce})`,
        },
      ]);
    }
    return userSignedActionDigest(p.action, type);
  }
  throw new ValidationError([
    { path: "action.type", message: `no signing recipe is known for ${JSON.stringify(type)}` },
  ]);
}

export async function signAction(signer: Signer, p: ActionSigningParams): Promise<Signature> {
  return signer.signDigest(actionDigest(p));
}

/** The address that signed this request (an agent for L1 actions, otherwise the account). */
export function recoverActionSigner(p: ActionSigningParams & { signature: unknown }): Address {
  return recoverDigestSigner(actionDigest(p), p.signature);
}
