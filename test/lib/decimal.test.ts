import { describe, expect, it } from "vitest";
import { fromWei, parseDecimal, toWei, toWireDecimal, truncateDecimals } from "../../src/lib/decimal.js";
import { ValidationError } from "../../src/lib/errors.js";

describe("decimal wire form", () => {
  it.each([
    ["1.50", "1.5"],
    ["10000.0", "10000"],
    ["0.0", "0"],
    ["-0", "0"],
    ["0.00000001", "0.00000001"],
    ["123456789012345678901.123", "123456789012345678901.123"],
  ])("%s → %s", (input, wire) => {
    expect(toWireDecimal(parseDecimal(input))).toBe(wire);
  });

  it("never uses an exponent, even for tiny and huge numbers", () => {
    expect(toWireDecimal(parseDecimal(1e-8))).toBe("0.00000001");
    expect(toWireDecimal(parseDecimal("100000000000000000000000"))).toBe("100000000000000000000000");
  });

  it("rejects exponents, spaces inside and empty strings with the field name", () => {
    for (const bad of ["1e5", "1 0", "", ".5", "5.", "0x10", "NaN"]) {
      expect(() => parseDecimal(bad, "size")).toThrow(ValidationError);
    }
    expect(() => parseDecimal("abc", "size")).toThrow(/^size: /);
  });

  it("truncates toward zero and never rounds up", () => {
    expect(toWireDecimal(truncateDecimals(parseDecimal("437.5999"), 2))).toBe("437.59");
    expect(toWireDecimal(truncateDecimals(parseDecimal("0.999"), 0))).toBe("0");
    expect(toWireDecimal(truncateDecimals(parseDecimal("-1.239"), 2))).toBe("-1.23");
  });
});

describe("wei conversion", () => {
  it("is exact for representable amounts", () => {
    expect(toWei("1", 8)).toBe(100_000_000n);
    expect(toWei("0.00000001", 8)).toBe(1n);
    expect(toWei("90071992.54740993", 8)).toBe(9007199254740993n); // beyond 2^53, still exact
    expect(fromWei(9007199254740993n, 8).toFixed()).toBe("90071992.54740993");
  });

  it("refuses amounts it cannot represent instead of rounding", () => {
    expect(() => toWei("0.000000001", 8, "amount")).toThrow(/more than 8 decimal places/);
    expect(() => toWei("-1", 8)).toThrow(/must not be negative/);
    expect(() => toWei("184467440737.09551616", 8)).toThrow(/exceeds uint64/);
  });
});
