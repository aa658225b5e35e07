// Hex, address and integer checks shared by the signing code and the wire builders. Addresses go on the
// wire lower-case (the venue compares them as text in places); a malformed one is refused before any
// hashing so it can never silently hash as something else.
import { bytesToHex, hexToBytes } from "@noble/hashes/utils";
import { ValidationError } from "../../lib/errors.js";
import { ADDRESS_PATTERN } from "../constants.js";

export type Hex = `0x${string}`;
export type Address = `0x${string}`;

const ADDRESS = ADDRESS_PATTERN;
export const MAX_UINT64 = (1n << 64n) - 1n;

export function isAddress(value: unknown): value is Address {
  return typeof value === "string" && ADDRESS.test(value);
}

/** `0x` + 40 hex digits, returned lower-case; otherwise a ValidationError naming `field`. */
export function normalizeAddress(value: unknown, field: string): Address {
  if (!isAddress(value)) {
    throw new ValidationError([
      {
        path: field,
        message: `expected an address (0x followed by 40 hex digits), got ${describe(value)}`,
      },
    ]);
  }
  return value.toLowerCase() as Address;
}

/** A non-negative safe integer (what the venue calls a uint64 and JSON carries as a number). */
export function requireUint(value: unknown, field: string, min = 0): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min) {
    throw new ValidationError([
      {
        path: field,
        message: `expected an integer >= ${min}${typeof value === "number" && value > Number.MAX_SAFE_INTEGER ? " and <= 2^53-1" : ""}, got ${describe(value)}`,
      },
    ]);
  }
  return value;
}

export function toHex(bytes: Uint8Array): Hex {
  return `0x${bytesToHex(bytes)}`;
}

/** Hex string (with or without 0x) to bytes. Odd length or non-hex characters are a ValidationError. */
export function fromHex(hex: string, field = "hex"): Uint8Array {
  const body = hex.startsWith("0x") || hex.startsWith("0X") ? hex.slice(2) : hex;
  if (body.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(body)) {
    throw new ValidationError([{ path: field, message: `not a hex string: ${describe(hex)}` }]);
  }
  return hexToBytes(body);
}

/** A 32-byte big-endian encoding of an unsigned integer (EIP-712 words, signature components). */
export function uintToBytes32(value: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let v = value;
  for (let i = 31; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** Writes `value` (0 <= value < 2^64) as 8 big-endian bytes at `offset`. */
export function writeUint64BE(target: Uint8Array, offset: number, value: number | bigint): void {
  const big = typeof value === "bigint" ? value : BigInt(value);
  new DataView(target.buffer, target.byteOffset, target.byteLength).setBigUint64(offset, big, false);
}

/** Short, safe rendering of an offending value for an error message. */
export function describe(value: unknown): string {
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "string") return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (value === undefined) return "undefined";
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  return Array.isArray(value) ? "an array" : typeof value;
}
