// Byte-level checks of the msgpack encoding the L1 hash depends on. Expected bytes are written out from
// the msgpack spec (as Python's msgpack.packb produces them), not computed by the library under test.
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../src/lib/errors.js";
import { toHex } from "../../../src/venue/signing/hex.js";
import { l1ActionHash } from "../../../src/venue/signing/l1.js";
import { assertMsgpackCanonical, packAction, packActionShared } from "../../../src/venue/signing/msgpack.js";

const hex = (v: unknown) => toHex(packAction(v)).slice(2);

describe("msgpack integers: smallest unsigned/signed form, uint64 from 2^32", () => {
  it.each([
    [0, "00"],
    [1, "01"],
    [127, "7f"],
    [128, "cc80"],
    [255, "ccff"],
    [256, "cd0100"],
    [65535, "cdffff"],
    [65536, "ce00010000"],
    [2 ** 32 - 1, "ceffffffff"],
    [2 ** 32, "cf0000000100000000"],
    [1700000000000, "cf0000018bcfe56800"],
    [2 ** 53 - 1, "cf001fffffffffffff"],
    [-1, "ff"],
    [-32, "e0"],
    [-33, "d0df"],
    [-128, "d080"],
    [-129, "d1ff7f"],
    [-32768, "d18000"],
    [-32769, "d2ffff7fff"],
    [-(2 ** 31), "d280000000"],
    [-(2 ** 31) - 1, "d3ffffffff7fffffff"],
  ])("%d → %s", (value, bytes) => {
    expect(hex(value)).toBe(bytes);
  });

  it("never produces a float (cb/ca) or int64 (d3) for a non-negative integer", () => {
    for (let e = 0; e <= 53; e++) {
      for (const v of [2 ** e - 1, 2 ** e, 2 ** e + 1]) {
        if (!Number.isSafeInteger(v)) continue;
        const first = hex(v).slice(0, 2);
        expect(["cb", "ca", "d3"]).not.toContain(first);
      }
    }
  });
});

describe("msgpack strings, nil, booleans, containers", () => {
  it.each([
    [0, "a0"],
    [31, "bf"],
    [32, "d920"],
    [255, "d9ff"],
    [256, "da0100"],
    [65535, "daffff"],
    [65536, "db00010000"],
  ])("string of %d bytes has header %s", (length, header) => {
    const out = hex("x".repeat(length));
    expect(out.slice(0, header.length)).toBe(header);
    expect(out.length).toBe(header.length + 2 * length);
  });

  it("measures strings in UTF-8 bytes", () => {
    expect(hex("é")).toBe("a2c3a9");
  });

  it("nil and booleans", () => {
    expect(hex(null)).toBe("c0");
    expect(hex(true)).toBe("c3");
    expect(hex(false)).toBe("c2");
  });

  it("keeps map keys in insertion order (no sorting)", () => {
    expect(hex({ b: 1, a: 2 })).toBe("82a16201a16102");
    expect(hex({ a: 2, b: 1 })).toBe("82a16102a16201");
  });

  it("an absent key and a null value are different bytes", () => {
    expect(hex({ a: 1 })).not.toBe(hex({ a: 1, b: null }));
    expect(hex({ a: 1, b: null })).toBe("82a16101a162c0");
  });

  it("array and map headers", () => {
    expect(hex([])).toBe("90");
    expect(hex([1, "a"])).toBe("9201a161");
    expect(hex(Array.from({ length: 16 }, () => 0)).slice(0, 6)).toBe("dc0010");
    const big: Record<string, number> = {};
    for (let i = 0; i < 16; i++) big[`k${i}`] = i;
    expect(hex(big).slice(0, 6)).toBe("de0010");
  });

  it("a decimal string is not the same as an integer", () => {
    expect(hex("0")).toBe("a130");
    expect(hex(0)).toBe("00");
  });
});

describe("values that would not encode canonically are refused", () => {
  it.each([
    ["a fraction", { type: "x", n: 1.5 }, "action.n"],
    ["an integer beyond 2^53", { type: "x", n: 2 ** 53 }, "action.n"],
    ["NaN", { type: "x", n: Number.NaN }, "action.n"],
    ["Infinity", { type: "x", n: Number.POSITIVE_INFINITY }, "action.n"],
    ["a bigint", { type: "x", n: 5n }, "action.n"],
    ["undefined in a map", { type: "x", n: undefined }, "action.n"],
    ["undefined in an array", { type: "x", list: [1, undefined] }, "action.list.1"],
    ["a Date", { type: "x", when: new Date(0) }, "action.when"],
    ["a Map", { type: "x", m: new Map() }, "action.m"],
    ["bytes", { type: "x", b: new Uint8Array(2) }, "action.b"],
    ["a function", { type: "x", f: () => 0 }, "action.f"],
    ["a nested fraction", { type: "twapOrder", twap: { a: 0, s: 0.1 } }, "action.twap.s"],
  ])("%s", (_label, action, path) => {
    let caught: unknown;
    try {
      assertMsgpackCanonical(action);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).field).toBe(path);
    // The hash refuses the same input instead of hashing something else.
    expect(() => l1ActionHash(action as Record<string, unknown>, 1)).toThrow(ValidationError);
  });

  it("accepts objects without a prototype", () => {
    const o = Object.create(null) as Record<string, unknown>;
    o.type = "noop";
    expect(hex(o)).toBe(hex({ type: "noop" }));
  });

  it("packAction returns a copy, packActionShared a view that the next call overwrites", () => {
    const copy = packAction({ type: "a" });
    const shared = packActionShared({ type: "a" });
    const before = toHex(shared);
    packActionShared({ type: "b" });
    expect(toHex(copy)).toBe(before);
    expect(toHex(shared)).not.toBe(before);
  });
});
