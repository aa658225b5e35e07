// A small EIP-712 hasher for the flat struct types the venue signs (string, address, bool, bytes32,
// uintN fields; no nested structs, no arrays). It exists instead of a general library because the
// digest sits on the hot path of every signature: type hashes and domain separators are computed once
// and reused, and each field is encoded straight into one buffer. Tests cross-check every type
// against ethers' TypedDataEncoder.
import { keccak_256 } from "@noble/hashes/sha3";
import { utf8ToBytes } from "@noble/hashes/utils";
import { ValidationError } from "../../lib/errors.js";
import { describe, fromHex, isAddress, uintToBytes32 } from "./hex.js";

export interface Eip712Field {
  name: string;
  type: string;
}

export interface Eip712Domain {
  name: string;
  version: string;
  chainId: number | bigint;
  verifyingContract: string;
}

/** `Name(type1 name1,type2 name2)`, the string whose hash is the type hash. */
export function encodeType(primaryType: string, fields: readonly Eip712Field[]): string {
  return `${primaryType}(${fields.map((f) => `${f.type} ${f.name}`).join(",")})`;
}

export function typeHash(primaryType: string, fields: readonly Eip712Field[]): Uint8Array {
  for (const f of fields) fieldEncoder(f.type);
  return keccak_256(utf8ToBytes(encodeType(primaryType, fields)));
}

type FieldEncoder = (value: unknown, path: string, out: Uint8Array, offset: number) => void;

const encoders = new Map<string, FieldEncoder>();

function fieldEncoder(type: string): FieldEncoder {
  const cached = encoders.get(type);
  if (cached) return cached;
  let encoder: FieldEncoder;
  if (type === "string") {
    encoder = (value, path, out, offset) => {
      if (typeof value !== "string") throw fieldError(path, "a string", value);
      out.set(stringHash(value), offset);
    };
  } else if (type === "address") {
    encoder = (value, path, out, offset) => {
      if (!isAddress(value)) throw fieldError(path, "an address (0x + 40 hex digits)", value);
      out.fill(0, offset, offset + 12);
      out.set(fromHex(value), offset + 12);
    };
  } else if (type === "bool") {
    encoder = (value, path, out, offset) => {
      if (typeof value !== "boolean") throw fieldError(path, "a boolean", value);
      out.fill(0, offset, offset + 32);
      out[offset + 31] = value ? 1 : 0;
    };
  } else if (type === "bytes32") {
    encoder = (value, path, out, offset) => {
      if (value instanceof Uint8Array && value.length === 32) {
        out.set(value, offset);
        return;
      }
      if (typeof value !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(value))
        throw fieldError(path, "32 bytes (0x + 64 hex digits)", value);
      out.set(fromHex(value), offset);
    };
  } else {
    const match = /^uint(\d{1,3})$/.exec(type);
    const bits = match ? Number(match[1]) : 0;
    if (!match || bits < 8 || bits > 256 || bits % 8 !== 0) {
      throw new ValidationError(`unsupported EIP-712 field type ${JSON.stringify(type)}`);
    }
    const max = (1n << BigInt(bits)) - 1n;
    encoder = (value, path, out, offset) => {
      if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0 && bits >= 53) {
        // The common case (nonces, small wei) without BigInt arithmetic, which is slow.
        out.fill(0, offset, offset + 24);
        const view = new DataView(out.buffer, out.byteOffset + offset + 24, 8);
        view.setUint32(0, Math.floor(value / 0x1_0000_0000));
        view.setUint32(4, value >>> 0);
        return;
      }
      let big: bigint;
      if (typeof value === "bigint") big = value;
      else if (typeof value === "number" && Number.isSafeInteger(value)) big = BigInt(value);
      else throw fieldError(path, `an integer (${type})`, value);
      if (big < 0n || big > max) throw fieldError(path, `an integer in the ${type} range`, value);
      out.set(uintToBytes32(big), offset);
    };
  }
  encoders.set(type, encoder);
  return encoder;
}

// keccak is the slow part of hashing a struct (about 10 µs a call), and most string fields repeat
// ("Mainnet", "Testnet", the same destination): short ones are remembered, in a bounded table.
const stringHashes = new Map<string, Uint8Array>();
const STRING_CACHE_MAX_ENTRIES = 256;
const STRING_CACHE_MAX_LENGTH = 64;

function stringHash(value: string): Uint8Array {
  const cached = stringHashes.get(value);
  if (cached) return cached;
  const hash = keccak_256(utf8ToBytes(value));
  if (value.length <= STRING_CACHE_MAX_LENGTH) {
    if (stringHashes.size >= STRING_CACHE_MAX_ENTRIES) stringHashes.clear();
    stringHashes.set(value, hash);
  }
  return hash;
}

function fieldError(path: string, expected: string, value: unknown): ValidationError {
  return new ValidationError([{ path, message: `expected ${expected}, got ${describe(value)}` }]);
}

/**
 * keccak256(typeHash ‖ enc(field1) ‖ …) of a flat struct. Fields are taken from `message` by name, in
 * the type's order; keys of `message` that are not fields are ignored, a missing field is an error.
 */
export function hashStruct(
  structTypeHash: Uint8Array,
  fields: readonly Eip712Field[],
  message: Record<string, unknown>,
  pathPrefix = "",
): Uint8Array {
  const buf = new Uint8Array(32 * (fields.length + 1));
  buf.set(structTypeHash, 0);
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    const value = message[f.name];
    const path = pathPrefix + f.name;
    if (value === undefined) throw new ValidationError([{ path, message: "required field is missing" }]);
    fieldEncoder(f.type)(value, path, buf, 32 * (i + 1));
  }
  return keccak_256(buf);
}

const DOMAIN_FIELDS: readonly Eip712Field[] = [
  { name: "name", type: "string" },
  { name: "version", type: "string" },
  { name: "chainId", type: "uint256" },
  { name: "verifyingContract", type: "address" },
];
const DOMAIN_TYPE_HASH = typeHash("EIP712Domain", DOMAIN_FIELDS);

export function domainSeparator(domain: Eip712Domain): Uint8Array {
  return hashStruct(DOMAIN_TYPE_HASH, DOMAIN_FIELDS, domain as unknown as Record<string, unknown>, "domain.");
}

/** keccak256(0x1901 ‖ domainSeparator ‖ structHash): the 32 bytes that are signed. */
export function typedDataDigest(domainSep: Uint8Array, structHash: Uint8Array): Uint8Array {
  const buf = new Uint8Array(66);
  buf[0] = 0x19;
  buf[1] = 0x01;
  buf.set(domainSep, 2);
  buf.set(structHash, 34);
  return keccak_256(buf);
}
