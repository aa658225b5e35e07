// Promise 4, "exact arithmetic", for the bytes that are signed: msgpack of L1 actions must be what
// Python's `msgpack.packb` produces (the venue re-serializes that way before hashing), with every integer
// in its smallest form and never a float. Checked against a reference encoder written here from the
// msgpack spec, over integers around every width boundary, strings around every length boundary and
// random nested actions.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/lib/errors.js";
import { packAction } from "../../src/venue/signing/msgpack.js";

const RUNS = { numRuns: 1000 };

function be(value: bigint, bytes: number): number[] {
  const out: number[] = [];
  for (let i = bytes - 1; i >= 0; i--) out.push(Number((value >> BigInt(8 * i)) & 0xffn));
  return out;
}

/** The msgpack spec as Python's packb applies it (use_bin_type, no floats for integers). */
function reference(value: unknown): number[] {
  if (value === null) return [0xc0];
  if (value === true) return [0xc3];
  if (value === false) return [0xc2];
  if (typeof value === "number") {
    const n = BigInt(value);
    if (n >= 0n) {
      if (n < 128n) return [Number(n)];
      if (n < 256n) return [0xcc, ...be(n, 1)];
      if (n < 65536n) return [0xcd, ...be(n, 2)];
      if (n < 1n << 32n) return [0xce, ...be(n, 4)];
      return [0xcf, ...be(n, 8)];
    }
    if (n >= -32n) return [Number(n & 0xffn)];
    const two = (bits: number) => (1n << BigInt(bits)) + n; // two's complement
    if (n >= -128n) return [0xd0, ...be(two(8), 1)];
    if (n >= -32768n) return [0xd1, ...be(two(16), 2)];
    if (n >= -(1n << 31n)) return [0xd2, ...be(two(32), 4)];
    return [0xd3, ...be(two(64), 8)];
  }
  if (typeof value === "string") {
    const bytes = [...new TextEncoder().encode(value)];
    const len = bytes.length;
    if (len < 32) return [0xa0 | len, ...bytes];
    if (len < 256) return [0xd9, len, ...bytes];
    if (len < 65536) return [0xda, ...be(BigInt(len), 2), ...bytes];
    return [0xdb, ...be(BigInt(len), 4), ...bytes];
  }
  if (Array.isArray(value)) {
    const len = value.length;
    const head =
      len < 16 ? [0x90 | len] : len < 65536 ? [0xdc, ...be(BigInt(len), 2)] : [0xdd, ...be(BigInt(len), 4)];
    return [...head, ...value.flatMap(reference)];
  }
  const entries = Object.entries(value as Record<string, unknown>);
  const len = entries.length;
  const head =
    len < 16 ? [0x80 | len] : len < 65536 ? [0xde, ...be(BigInt(len), 2)] : [0xdf, ...be(BigInt(len), 4)];
  return [...head, ...entries.flatMap(([k, v]) => [...reference(k), ...reference(v)])];
}

const BOUNDARIES = [
  0,
  31,
  32,
  127,
  128,
  255,
  256,
  65535,
  65536,
  2 ** 32 - 1,
  2 ** 32,
  2 ** 53 - 1,
  -1,
  -32,
  -33,
  -128,
  -129,
  -32768,
  -32769,
  -(2 ** 31),
  -(2 ** 31) - 1,
  -(2 ** 53) + 1,
];

const safeInt = fc.oneof(
  fc.constantFrom(...BOUNDARIES),
  fc
    .constantFrom(...BOUNDARIES)
    .chain((b) =>
      fc.integer({ min: -2, max: 2 }).map((d) => Math.max(-(2 ** 53) + 1, Math.min(2 ** 53 - 1, b + d))),
    ),
  fc.integer(),
  fc.maxSafeInteger(),
  // Nonces and wei live here: milliseconds since 1970 and HYPE × 1e8.
  fc.integer({ min: 1_600_000_000_000, max: 2_000_000_000_000 }),
);

const lengthAround = (n: number) => fc.integer({ min: Math.max(0, n - 2), max: n + 2 });
const str = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.oneof(lengthAround(31), lengthAround(255), lengthAround(65535)).map((n) => "a".repeat(n)),
  // Multi-byte characters: the length that counts is in UTF-8 bytes, not characters.
  fc.oneof(lengthAround(15), lengthAround(127)).map((n) => "é".repeat(n)),
);

const actionValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    safeInt,
    fc.string({ maxLength: 40 }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 18 }),
    fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), tie("value"), { maxKeys: 18 }),
  ),
})).value;

describe("msgpack of L1 actions", () => {
  it("encodes every safe integer in its smallest width, as Python's msgpack does", () => {
    fc.assert(
      fc.property(safeInt, (n) => {
        const action = { type: "twapCancel", a: n, t: n };
        expect([...packAction(action)]).toEqual(reference(action));
      }),
      RUNS,
    );
  });

  it("encodes strings by their UTF-8 length: fixstr, str8, str16, str32", () => {
    fc.assert(
      fc.property(str, (s) => {
        const action = { type: "twapOrder", twap: { s } };
        expect([...packAction(action)]).toEqual(reference(action));
      }),
      { numRuns: 300 },
    );
  });

  it("encodes nested actions byte for byte, keys in insertion order", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), actionValue, { maxKeys: 6 }),
        (rest) => {
          const action = { type: "twapOrder", ...rest };
          expect([...packAction(action)]).toEqual(reference(action));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("refuses any number it could not encode exactly (fractions, beyond 2^53, NaN, Infinity)", () => {
    const inexact = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Number.isSafeInteger(x)),
      fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 2 ** 53, 2 ** 64),
    );
    fc.assert(
      fc.property(inexact, fc.boolean(), (x, nested) => {
        const action = nested ? { type: "twapOrder", twap: { a: 1, s: x } } : { type: "twapCancel", a: x };
        expect(() => packAction(action)).toThrow(ValidationError);
      }),
      RUNS,
    );
  });
});
