import { describe, expect, it } from "vitest";
import { parseJson, stringifyJson } from "../../src/lib/json.js";

describe("lossless JSON", () => {
  it("keeps integers beyond 2^53 exact as bigint and safe integers as numbers", () => {
    const parsed = parseJson('[{"stake":123456789012345678901,"n":42,"x":"0x0000000000000000"}]') as Array<
      Record<string, unknown>
    >;
    expect(parsed[0]?.stake).toBe(123456789012345678901n);
    expect(parsed[0]?.n).toBe(42);
    expect(stringifyJson(parsed)).toBe('[{"stake":123456789012345678901,"n":42,"x":"0x0000000000000000"}]');
  });

  it("treats 2^53 − 1 as a number and 2^53 + 1 as a bigint", () => {
    expect(parseJson("9007199254740991")).toBe(9007199254740991);
    expect(parseJson("9007199254740993")).toBe(9007199254740993n);
  });

  it("throws a SyntaxError on invalid JSON on both paths", () => {
    expect(() => parseJson("{")).toThrow(SyntaxError);
    expect(() => parseJson('{"a":12345678901234567890')).toThrow(SyntaxError);
  });
});
