// msgpack of an L1 action exactly as the venue hashes it (Python `msgpack.packb` defaults): maps in
// insertion order, integers in their smallest form (uint64 `cf` from 2^32 up), strings as
// fixstr/str8/str16/str32, null as `c0`. @msgpack/msgpack does exactly this for the values accepted
// here; anything it would encode differently (a fraction or an unsafe integer becomes a float64, a
// bigint, undefined or a Date something else again) is refused up front, because a wrong byte is not
// an error at the venue: it silently recovers a different signer.
import { Encoder } from "@msgpack/msgpack";
import { ValidationError } from "../../lib/errors.js";
import { describe } from "./hex.js";

const encoder = new Encoder({ sortKeys: false, ignoreUndefined: false, forceIntegerToFloat: false });

/** Throws a ValidationError naming the path of the first value msgpack would not encode canonically. */
export function assertMsgpackCanonical(value: unknown, path = "action"): void {
  switch (typeof value) {
    case "string":
    case "boolean":
      return;
    case "number":
      if (!Number.isSafeInteger(value)) {
        throw new ValidationError([
          {
            path,
            message: Number.isInteger(value)
              ? `integer ${value} is beyond 2^53-1 and not exact as a number`
              : `${value} is not an integer (decimals go on the wire as strings)`,
          },
        ]);
      }
      return;
    case "object": {
      if (value === null) return;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) assertMsgpackCanonical(value[i], `${path}.${i}`);
        return;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        throw new ValidationError([
          { path, message: "only plain objects, arrays, strings, integers, booleans and null can be hashed" },
        ]);
      }
      for (const key of Object.keys(value)) {
        assertMsgpackCanonical((value as Record<string, unknown>)[key], `${path}.${key}`);
      }
      return;
    }
    default:
      throw new ValidationError([{ path, message: `${describe(value)} cannot be hashed in an L1 action` }]);
  }
}

/**
 * The msgpack bytes of `action`. The returned view aliases the encoder's buffer and is only valid until
 * the next call: hash it immediately (or copy it).
 */
export function packActionShared(action: unknown): Uint8Array {
  assertMsgpackCanonical(action);
  return encoder.encodeSharedRef(action);
}

/** The msgpack bytes of `action`, as a fresh copy. */
export function packAction(action: unknown): Uint8Array {
  return packActionShared(action).slice();
}
