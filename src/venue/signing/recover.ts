// Signature wire format and public-key recovery. Kept apart from signer.ts (which loads ethers, lazily,
// for keystores) so that the simulator, which recovers the signer of every request it receives, loads
// only the small noble primitives.
import { secp256k1 } from "@noble/curves/secp256k1";
import { keccak_256 } from "@noble/hashes/sha3";
import { ValidationError } from "../../lib/errors.js";
import { type Address, describe, toHex } from "./hex.js";

/** `r`, `s` zero-padded to 64 hex digits; `v` 27 or 28. */
export interface Signature {
  r: `0x${string}`;
  s: `0x${string}`;
  v: 27 | 28;
}

const CURVE_N = secp256k1.CURVE.n;

/** The wire form of a signature from its components. */
export function formatSignature(r: bigint, s: bigint, recovery: number): Signature {
  return {
    r: `0x${r.toString(16).padStart(64, "0")}`,
    s: `0x${s.toString(16).padStart(64, "0")}`,
    v: recovery === 0 ? 27 : 28,
  };
}

function component(value: unknown, field: string): bigint {
  // The Python SDK writes r and s without leading zeros, so any length up to 64 digits is accepted.
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]{1,64}$/.test(value)) {
    throw new ValidationError([
      { path: field, message: `expected 0x and up to 64 hex digits, got ${describe(value)}` },
    ]);
  }
  const n = BigInt(value);
  if (n === 0n || n >= CURVE_N) {
    throw new ValidationError([{ path: field, message: "out of range for secp256k1" }]);
  }
  return n;
}

/** Parses a signature as received on the wire (r/s of any length up to 64 digits, v 27 or 28). */
export function parseSignature(sig: unknown): { r: bigint; s: bigint; recovery: 0 | 1 } {
  if (sig === null || typeof sig !== "object") {
    throw new ValidationError([{ path: "signature", message: `expected {r, s, v}, got ${describe(sig)}` }]);
  }
  const { r, s, v } = sig as Record<string, unknown>;
  if (v !== 27 && v !== 28) {
    throw new ValidationError([{ path: "signature.v", message: `expected 27 or 28, got ${describe(v)}` }]);
  }
  return { r: component(r, "signature.r"), s: component(s, "signature.s"), recovery: v === 27 ? 0 : 1 };
}

/** Lower-case address of an uncompressed (65-byte) or compressed (33-byte) secp256k1 public key. */
export function addressOfPublicKey(publicKey: Uint8Array): Address {
  const uncompressed =
    publicKey.length === 65 ? publicKey : secp256k1.Point.fromBytes(publicKey).toBytes(false);
  return toHex(keccak_256(uncompressed.subarray(1)).subarray(12)) as Address;
}

/** The address whose key produced `signature` over the 32-byte `digest`. */
export function recoverDigestSigner(digest: Uint8Array, signature: unknown): Address {
  const { r, s, recovery } = parseSignature(signature);
  let point: ReturnType<typeof secp256k1.Point.fromBytes>;
  try {
    point = new secp256k1.Signature(r, s).addRecoveryBit(recovery).recoverPublicKey(digest);
  } catch {
    throw new ValidationError([{ path: "signature", message: "no public key recovers from this signature" }]);
  }
  return addressOfPublicKey(point.toBytes(false));
}
