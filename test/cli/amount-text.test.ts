// An amount flag as typed: ".5" is 0.5 everywhere after it (an audit: the flag check let it through and
// the amount's parser then refused it as "no decimal number like 12.5").
import { describe, expect, it } from "vitest";
import { parseAmountText } from "../../src/cli/options.js";
import { parseDecimal } from "../../src/lib/decimal.js";
import { ValidationError } from "../../src/lib/errors.js";

describe("parseAmountText", () => {
  it("reads .5 as 0.5, which every later parser takes, and still refuses what is no amount", () => {
    expect(parseAmountText(".5", "--amount")).toBe("0.5");
    expect(parseDecimal(parseAmountText(" .25 ", "--size"), "amount").toFixed()).toBe("0.25");
    expect(parseAmountText("12.5", "--amount")).toBe("12.5");
    for (const bad of ["5.", "-1", "1e3", ".", ""])
      expect(() => parseAmountText(bad, "--amount")).toThrow(ValidationError);
  });
});
