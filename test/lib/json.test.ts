import { describe, expect, it } from "vitest";
import { Decimal } from "../../src/lib/decimal.js";
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

  it("finds a bigint at any depth of arrays and objects, and writes plain JSON when there is none", () => {
    const deep = { a: [1, { b: [null, { c: 2n ** 70n }] }], d: "x" };
    expect(stringifyJson(deep)).toBe('{"a":[1,{"b":[null,{"c":1180591620717411303424}]}],"d":"x"}');
    expect(stringifyJson([[[], {}], [[-(2n ** 64n)]]])).toBe("[[[],{}],[[-18446744073709551616]]]");
    const plain = { a: [1, { b: [null, { c: 2 ** 52, e: 1.5 }] }], d: "12345678901234567890", t: true };
    expect(stringifyJson(plain)).toBe(JSON.stringify(plain));
    expect(stringifyJson(plain, 2)).toBe(JSON.stringify(plain, null, 2));
  });

  it("writes bigints exactly beside a string that reads like its own placeholder", () => {
    const tricky = { s: "\u0000bigint:12", n: 12345678901234567890n, list: [-(2n ** 80n), "x"] };
    const text = stringifyJson(tricky);
    expect(text).toBe(
      '{"s":"\\u0000bigint:12","n":12345678901234567890,"list":[-1208925819614629174706176,"x"]}',
    );
    expect(parseJson(text)).toEqual(tricky);
    expect(stringifyJson({ a: [1n, { b: 2n }] }, 2)).toBe(
      '{\n  "a": [\n    1,\n    {\n      "b": 2\n    }\n  ]\n}',
    );
  });

  it("writes a value holding bigints as the native writer sees it: toJSON once, own keys, boxed values", () => {
    const inner = { toJSON: () => "inner" };
    const value = {
      d: new Decimal("1.50"),
      when: new Date(Date.UTC(2025, 0, 1)),
      once: { toJSON: (key: string) => ({ key, inner }) },
      boxed: [new Number(3), new String("s"), new Boolean(false)],
      skipped: undefined,
      fn: () => 1,
      list: [undefined, 1n],
      ...JSON.parse('{"__proto__": {"x": 1}}'),
      big: 2n ** 70n,
    };
    expect(stringifyJson(value)).toBe(
      '{"d":"1.5","when":"2025-01-01T00:00:00.000Z","once":{"key":"once","inner":"inner"},' +
        '"boxed":[3,"s",false],"list":[null,1],"__proto__":{"x":1},"big":1180591620717411303424}',
    );
    // The same value without its bigints is what the native writer gives.
    const { big: _big, list: _list, ...rest } = value;
    expect(stringifyJson({ ...rest, n: 1n })).toBe(`${JSON.stringify(rest).slice(0, -1)},"n":1}`);
    // Every bigint the native writer would meet is written as digits: a boxed one, one a toJSON gives.
    expect(stringifyJson({ a: Object(5n), b: [Object(7n)], c: { toJSON: () => 9n } })).toBe(
      '{"a":5,"b":[7],"c":9}',
    );
    // A cycle is refused as the native writer refuses it, bigint or not.
    const cyclic: Record<string, unknown> = { n: 1n };
    cyclic.self = cyclic;
    expect(() => stringifyJson(cyclic)).toThrow(/circular/i);
  });

  it("keeps the last value of a key given twice, as the native parser does, with or without long digits", () => {
    expect(parseJson('{"a":1,"a":2}')).toEqual({ a: 2 });
    expect(parseJson('{"a":1,"a":2,"s":"\\u0000","t":1234567890123456}')).toEqual({
      a: 2,
      s: "\u0000",
      t: 1234567890123456,
    });
  });

  it("treats 2^53 − 1 as a number and 2^53 + 1 as a bigint", () => {
    expect(parseJson("9007199254740991")).toBe(9007199254740991);
    expect(parseJson("9007199254740993")).toBe(9007199254740993n);
    // 2^53 is the first integer past the safe ones: a bigint, though a double holds it.
    expect(parseJson('{"a":[9007199254740992]}')).toEqual({ a: [9007199254740992n] });
    // Beyond what a double holds at all (the native parser's Infinity) and negative: still exact.
    const huge = `1${"0".repeat(400)}`;
    expect(parseJson(`{"x":[1.5,-${huge}]}`)).toEqual({ x: [1.5, -(10n ** 400n)] });
    // Large numbers that are not integer tokens stay numbers.
    expect(parseJson("[1e300, 12345678901234567.5]")).toEqual([1e300, 12345678901234568]);
  });

  it("throws a SyntaxError on invalid JSON on both paths", () => {
    expect(() => parseJson("{")).toThrow(SyntaxError);
    expect(() => parseJson('{"a":12345678901234567890')).toThrow(SyntaxError);
  });
});

describe("parseJson fast exact path (placeholders through the native parser)", () => {
  it("agrees with the exact parser on random documents holding big integers, hashes and escapes", async () => {
    const fc = await import("fast-check");
    const { parse: losslessParse, isSafeNumber } = await import("lossless-json");
    const exact = (text: string) =>
      losslessParse(text, null, (n: string) =>
        /^-?\d+$/.test(n) && !isSafeNumber(n) ? BigInt(n) : Number(n),
      );
    const leaf = fc.oneof(
      fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom("0x1234567890123456789012345678901234567890", '12345678901234567 "x" \\', "a\nb"),
      fc.string(),
      fc.boolean(),
      fc.constant(null),
    );
    const doc = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, leaf, tie("array"), tie("object")),
      array: fc.array(tie("value"), { maxLength: 5 }),
      object: fc.dictionary(fc.string({ maxLength: 6 }), tie("value"), { maxKeys: 5 }),
    })).value;
    fc.assert(
      fc.property(doc, (value) => {
        const text = stringifyJson(value);
        expect(parseJson(text)).toEqual(exact(text));
      }),
      { numRuns: 500 },
    );
  });

  it("keeps 16-digit safe integers, fractions and exponents as numbers next to big integers", () => {
    const parsed = parseJson(
      '{"a":9007199254740993,"b":1234567890123456,"c":1234567890123456.5,"d":1.5e17,"e":-98765432109876543210,"f":"99999999999999999"}',
    );
    expect(parsed).toEqual({
      a: 9007199254740993n,
      b: 1234567890123456,
      c: 1234567890123456.5,
      d: 1.5e17,
      e: -98765432109876543210n,
      f: "99999999999999999",
    });
  });

  it("is not fooled by number-like text inside strings", () => {
    expect(parseJson('{"d":"a:12345678901234567890,b","s":[ 12345678901234567890 ]}')).toEqual({
      d: "a:12345678901234567890,b",
      s: [12345678901234567890n],
    });
    expect(parseJson('["0x12345678901234567890abcdef1234567890ab", 12345678901234567890]')).toEqual([
      "0x12345678901234567890abcdef1234567890ab",
      12345678901234567890n,
    ]);
    expect(parseJson(" -12345678901234567890 ")).toBe(-12345678901234567890n);
    // A digit run in a string that no ':', ',' or '[' precedes (an address of repeated digits) is text.
    expect(
      parseJson('{"deployer":"0x2222222222222222222222222222222222222222","n":[\n\t12345678901234567890]}'),
    ).toEqual({
      deployer: "0x2222222222222222222222222222222222222222",
      n: [12345678901234567890n],
    });
    expect(parseJson("\n\t12345678901234567890")).toBe(12345678901234567890n);
  });

  it("refuses a big integer used as an object key and leading zeros, like the exact parser", () => {
    expect(() => parseJson("00000000000000000001")).toThrow(SyntaxError);
    expect(() => parseJson('{"a":1,12345678901234567890:2}')).toThrow(SyntaxError);
    expect(() => parseJson("[012345678901234567890]")).toThrow(SyntaxError);
    expect(() => parseJson('["x 12345678901234567890]')).toThrow(SyntaxError);
  });

  it("bounds nesting by depth, not by the number of brackets", async () => {
    const { JsonDepthError } = await import("../../src/lib/json.js");
    // 600 sibling arrays: many brackets, depth 2.
    expect(parseJson(`[${Array.from({ length: 600 }, () => "[1]").join(",")}]`)).toHaveLength(600);
    // 300 objects and 300 arrays, alternating: depth 600, neither kind alone over 512.
    const deep = `${'{"a":['.repeat(300)}1${"]}".repeat(300)}`;
    expect(() => parseJson(deep)).toThrow(JsonDepthError);
    expect(parseJson(deep, { maxDepth: 600 })).toBeDefined();
    expect(parseJson(deep.replace("1", "12345678901234567890"), { maxDepth: 600 })).toBeDefined();
    expect(() => parseJson(deep.replace("1", "12345678901234567890"))).toThrow(JsonDepthError);
    // Too deep and not JSON: the depth is what is reported, as before any parsing.
    expect(() => parseJson(`${deep}]`)).toThrow(JsonDepthError);
    // Brackets inside strings are not nesting.
    expect(parseJson(JSON.stringify({ s: "[".repeat(2000) }))).toEqual({ s: "[".repeat(2000) });
    // Exactly the limit is accepted.
    expect(parseJson(`${"[".repeat(512)}${"]".repeat(512)}`)).toBeDefined();
    expect(() => parseJson(`${"[".repeat(513)}${"]".repeat(513)}`)).toThrow(JsonDepthError);
  });

  it("takes the exact parser when the text already holds an escaped NUL", () => {
    expect(parseJson('["\\u0000bigint:1",12345678901234567890]')).toEqual([
      "\u0000bigint:1",
      12345678901234567890n,
    ]);
  });
});
