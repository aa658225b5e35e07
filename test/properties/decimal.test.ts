// Promise 4, "exact arithmetic", for decimals: parsing and the venue's canonical formatting, size
// truncation to szDecimals, and HYPE ↔ wei. Every property is checked against a reference built from
// bigint integer arithmetic (a decimal is an integer mantissa and a scale), not against decimal.js itself.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  Decimal,
  fromWei,
  MAX_UINT64,
  parseDecimal,
  toWei,
  toWireDecimal,
  truncateDecimals,
} from "../../src/lib/decimal.js";
import { ValidationError } from "../../src/lib/errors.js";
import { parseJson, stringifyJson } from "../../src/lib/json.js";
import { buildCDeposit } from "../../src/venue/exchange/actions/cDeposit.js";
import { buildTokenDelegate } from "../../src/venue/exchange/actions/tokenDelegate.js";
import { buildTwapOrder } from "../../src/venue/exchange/actions/twapOrder.js";

const RUNS = { numRuns: 500 };
const TEN = 10n;

/** A decimal as (mantissa, scale): value = mantissa / 10^scale. */
interface Dec {
  m: bigint;
  scale: number;
}

const decimalArb = (maxScale = 20, maxDigits = 40): fc.Arbitrary<Dec> =>
  fc.record({
    m: fc.bigInt({ min: -(TEN ** BigInt(maxDigits)), max: TEN ** BigInt(maxDigits) }),
    scale: fc.integer({ min: 0, max: maxScale }),
  });

/** The venue's canonical spelling, from integers only: no exponent, no trailing zeros, "0" for zero. */
function canonical({ m, scale }: Dec): string {
  const negative = m < 0n;
  const abs = negative ? -m : m;
  const unit = TEN ** BigInt(scale);
  const int = (abs / unit).toString();
  const frac = scale === 0 ? "" : (abs % unit).toString().padStart(scale, "0").replace(/0+$/, "");
  if (abs === 0n) return "0";
  return `${negative ? "-" : ""}${int}${frac ? `.${frac}` : ""}`;
}

/** A non-canonical but valid spelling: the same value with extra trailing (and maybe leading) zeros. */
function spelled({ m, scale }: Dec, extraZeros: number, leadingZero: boolean): string {
  const negative = m < 0n;
  const abs = negative ? -m : m;
  const unit = TEN ** BigInt(scale);
  const int = (abs / unit).toString();
  const frac = scale === 0 ? "" : (abs % unit).toString().padStart(scale, "0");
  const fracOut = frac + "0".repeat(extraZeros);
  return `${negative ? "-" : ""}${leadingZero ? "0" : ""}${int}${fracOut ? `.${fracOut}` : ""}`;
}

/** Truncation toward zero to `n` decimals, in integers. */
function truncRef({ m, scale }: Dec, n: number): Dec {
  if (scale <= n) return { m, scale };
  const cut = TEN ** BigInt(scale - n);
  return { m: m / cut, scale: n }; // bigint division truncates toward zero
}

describe("decimal parsing and formatting", () => {
  it("formats every decimal in the venue's canonical form, whatever its input spelling", () => {
    fc.assert(
      fc.property(decimalArb(), fc.integer({ min: 0, max: 5 }), fc.boolean(), (d, zeros, lead) => {
        const text = spelled(d, zeros, lead);
        const wire = toWireDecimal(parseDecimal(text));
        expect(wire).toBe(canonical(d));
        expect(wire).toMatch(/^-?(0|[1-9]\d*)(\.\d*[1-9])?$/);
      }),
      RUNS,
    );
  });

  it("round-trips the canonical form exactly", () => {
    fc.assert(
      fc.property(decimalArb(), (d) => {
        const wire = canonical(d);
        expect(toWireDecimal(parseDecimal(wire))).toBe(wire);
        expect(toWireDecimal(parseDecimal(`${wire}`).neg().neg())).toBe(wire);
      }),
      RUNS,
    );
  });

  it("adds and subtracts venue amounts exactly (no binary floating point anywhere)", () => {
    fc.assert(
      fc.property(decimalArb(12, 24), decimalArb(12, 24), (a, b) => {
        const scale = Math.max(a.scale, b.scale);
        const up = (x: Dec) => x.m * TEN ** BigInt(scale - x.scale);
        const expected = canonical({ m: up(a) + up(b), scale });
        const got = parseDecimal(canonical(a)).plus(parseDecimal(canonical(b)));
        expect(toWireDecimal(got)).toBe(expected);
        expect(toWireDecimal(got.minus(parseDecimal(canonical(b))))).toBe(canonical(a));
      }),
      RUNS,
    );
  });

  it("refuses every spelling that is not a plain decimal, with a ValidationError naming the field", () => {
    const broken = fc.oneof(
      decimalArb(6, 10).map((d) => `${canonical(d)}e3`),
      decimalArb(6, 10).map((d) => `${canonical(d)}.`),
      decimalArb(6, 10).map((d) => `+${canonical(d)}`),
      decimalArb(6, 10).map((d) => `${canonical(d)} 5`),
      decimalArb(6, 10).map((d) => `${canonical(d)},5`),
      decimalArb(0, 10).map((d) => `0x${(d.m < 0n ? -d.m : d.m).toString(16)}`),
      fc.constantFrom(
        "",
        ".",
        "-",
        ".5",
        "NaN",
        "Infinity",
        "-Infinity",
        "1_000",
        "１２",
        "1..2",
        "--1",
        "1e-8",
      ),
    );
    fc.assert(
      fc.property(broken, (text) => {
        let error: unknown;
        try {
          parseDecimal(text, "params.amountUsd");
        } catch (err) {
          error = err;
        }
        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).field).toBe("params.amountUsd");
      }),
      RUNS,
    );
  });

  it("takes a YAML/JS number at its shortest round-trip spelling, never its binary expansion", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        const d = parseDecimal(n);
        const wire = toWireDecimal(d);
        expect(wire).not.toMatch(/e/i);
        expect(Number(wire)).toBe(n === 0 ? 0 : n);
        // 0.1 stays 0.1, not 0.1000000000000000055511151231257827.
        if (Math.abs(n) >= 1e-6 && Math.abs(n) < 1e15) expect(wire).toBe(new Decimal(String(n)).toFixed());
      }),
      RUNS,
    );
  });
});

describe("size truncation to szDecimals", () => {
  it("truncates toward zero, never rounds up, keeps at most n decimals, and is idempotent", () => {
    fc.assert(
      fc.property(decimalArb(), fc.integer({ min: 0, max: 12 }), (d, n) => {
        const x = parseDecimal(canonical(d));
        const t = truncateDecimals(x, n);
        expect(toWireDecimal(t)).toBe(canonical(truncRef(d, n)));
        expect(t.abs().lte(x.abs())).toBe(true);
        expect(x.minus(t).abs().lt(new Decimal(10).pow(-n))).toBe(true);
        expect(t.decimalPlaces()).toBeLessThanOrEqual(n);
        expect(truncateDecimals(t, n).eq(t)).toBe(true);
      }),
      RUNS,
    );
  });

  it("puts the truncated size on the twapOrder wire, or refuses a size that truncates to nothing", () => {
    fc.assert(
      fc.property(
        decimalArb(12, 20).filter((d) => d.m > 0n),
        fc.integer({ min: 0, max: 8 }),
        (d, szDecimals) => {
          const expected = truncRef(d, szDecimals);
          const build = () =>
            buildTwapOrder({ asset: 10107, isBuy: true, size: canonical(d), szDecimals, minutes: 30 });
          if (expected.m === 0n) {
            expect(build).toThrow(ValidationError);
            return;
          }
          const s = build().twap.s;
          expect(s).toBe(canonical(expected));
          expect(new Decimal(s).lte(new Decimal(canonical(d)))).toBe(true);
        },
      ),
      RUNS,
    );
  });
});

describe("HYPE ↔ wei", () => {
  const weiArb = fc.bigInt({ min: 1n, max: MAX_UINT64 });

  it("converts every uint64 wei amount to HYPE and back exactly", () => {
    fc.assert(
      fc.property(weiArb, (wei) => {
        const hype = fromWei(wei, 8);
        expect(toWireDecimal(hype)).toBe(canonical({ m: wei, scale: 8 }));
        expect(toWei(hype, 8)).toBe(wei);
        expect(toWei(toWireDecimal(hype), 8)).toBe(wei);
      }),
      RUNS,
    );
  });

  it("refuses amounts finer than 1 wei, negative, or beyond uint64, instead of rounding", () => {
    const tooFine = fc
      .record({ m: fc.bigInt({ min: 1n, max: 10n ** 20n }), scale: fc.integer({ min: 9, max: 18 }) })
      .filter((d) => d.m % TEN ** BigInt(d.scale - 8) !== 0n);
    const negative = decimalArb(8, 20).filter((d) => d.m < 0n);
    const huge = fc
      .bigInt({ min: MAX_UINT64 + 1n, max: MAX_UINT64 * 1000n })
      .map((w) => ({ m: w, scale: 8 }));
    fc.assert(
      fc.property(fc.oneof(tooFine, negative, huge), (d) => {
        expect(() => toWei(canonical(d), 8, "amount")).toThrow(ValidationError);
        expect(() => buildCDeposit({ network: "testnet", amount: canonical(d), nonce: 1 })).toThrow(
          ValidationError,
        );
      }),
      RUNS,
    );
  });

  it("writes wei as an exact JSON integer in staking actions: a number up to 2^53 − 1, digits beyond", () => {
    fc.assert(
      fc.property(weiArb, fc.boolean(), (wei, delegate) => {
        const amount = toWireDecimal(fromWei(wei, 8));
        const action = delegate
          ? buildTokenDelegate({
              network: "mainnet",
              amount,
              validator: "0x5ac99df645f3414876c816caa18b2d234024b487",
              isUndelegate: false,
              nonce: 1_700_000_000_000,
            })
          : buildCDeposit({ network: "testnet", amount, nonce: 1_700_000_000_000 });
        const safe = wei <= BigInt(Number.MAX_SAFE_INTEGER);
        expect(typeof action.wei).toBe(safe ? "number" : "bigint");
        const text = stringifyJson(action);
        expect(text).toContain(`"wei":${wei.toString()}`);
        const back = (parseJson(text) as { wei: number | bigint }).wei;
        expect(BigInt(back)).toBe(wei);
      }),
      RUNS,
    );
  });
});
