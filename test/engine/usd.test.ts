// USD per unit of a token: a stablecoin by its exact venue name counts 1:1, anything else (a token named
// like one in another case included: venue names are case-sensitive identities) at its mid against USDC.
// A tokens trial: a token "usdh" trading at 0.01 USDC was counted at 1 USD (50,000 of it as 50,000 USD).
import { describe, expect, it } from "vitest";
import { spotUniverse } from "../../src/engine/readSnapshot.js";
import { isUsdStablecoin, usdPerUnit, valueUsdPerUnit } from "../../src/engine/usd.js";
import type { SpotMetaResponse } from "../../src/venue/info/methods/index.js";

const token = (name: string, index: number) => ({
  name,
  szDecimals: 2,
  weiDecimals: 8,
  index,
  tokenId: `0x${index.toString(16).padStart(32, "0")}`,
  isCanonical: false,
  evmContract: null,
  fullName: null,
});

const META: SpotMetaResponse = {
  tokens: [token("USDC", 0), token("USDH", 1), token("usdh", 2)],
  universe: [
    { name: "@1", tokens: [1, 0], index: 1, isCanonical: false },
    { name: "@2", tokens: [2, 0], index: 2, isCanonical: false },
  ],
} as SpotMetaResponse;

describe("usdPerUnit", () => {
  it("counts USDH at 1 and a token named usdh at its own mid", () => {
    const universe = spotUniverse(META, { "@1": "0.9991", "@2": "0.01" });
    expect(isUsdStablecoin("USDH")).toBe(true);
    expect(isUsdStablecoin("usdh")).toBe(false);
    expect(usdPerUnit(universe, "USDH")?.toString()).toBe("1");
    expect(usdPerUnit(universe, "usdh")?.toString()).toBe("0.01");
  });
});

describe("valueUsdPerUnit", () => {
  it("values a token quoted only in HYPE through HYPE's USD price, and one with no route not at all", () => {
    const meta = {
      tokens: [token("USDC", 0), token("HYPE", 1), token("FOO", 2), token("BAR", 3), token("BAZ", 4)],
      universe: [
        { name: "@1", tokens: [1, 0], index: 1, isCanonical: false },
        { name: "@2", tokens: [2, 1], index: 2, isCanonical: false },
        // BAR trades only against BAZ, which has no USD price itself.
        { name: "@3", tokens: [3, 4], index: 3, isCanonical: false },
      ],
    } as SpotMetaResponse;
    const universe = spotUniverse(meta, { "@1": "25", "@2": "0.12", "@3": "2" });
    // Acting on a value stays strict: no pair against USDC, no USD price.
    expect(usdPerUnit(universe, "FOO")).toBeUndefined();
    expect(valueUsdPerUnit(universe, "FOO")?.toString()).toBe("3");
    expect(valueUsdPerUnit(universe, "HYPE")?.toString()).toBe("25");
    expect(valueUsdPerUnit(universe, "BAR")).toBeUndefined();
  });
});
