import { describe, expect, it } from "vitest";
import { jsonSchemaFor } from "../../../src/engine/config/jsonSchema.js";
import { STRATEGY_KINDS } from "../../../src/engine/strategies/registry.js";

type Json = Record<string, unknown>;
const props = (s: unknown) => (s as { properties: Json }).properties;

describe("JSON Schema for editors", () => {
  it("describes the bot file: strict, with enums, defaults and required limits", () => {
    const s = jsonSchemaFor("config");
    expect(s.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(s.title).toBe("hlbot bot configuration");
    expect(s.additionalProperties).toBe(false);
    expect(s.required).toEqual(["network", "limits"]);
    expect(props(s).network).toMatchObject({ enum: ["mainnet", "testnet"] });
    expect(props(s).mode).toMatchObject({ default: "dry-run", enum: ["dry-run", "live"] });
    const limits = props(s).limits as Json;
    expect(limits.required).toEqual(["maxOrderUsd", "maxDailyNotionalUsd", "maxStakeMovePerDay"]);
    // Decimals: a YAML number or a decimal string.
    expect((props(limits).maxOrderUsd as { anyOf: Json[] }).anyOf.map((o) => o.type)).toEqual([
      "number",
      "string",
    ]);
  });

  it("describes strategy files as one option per kind, each with its params", () => {
    const s = jsonSchemaFor("strategy");
    const options = s.oneOf as Json[];
    expect(options.map((o) => (props(o).kind as Json).const)).toEqual(STRATEGY_KINDS);
    for (const o of options) {
      expect(o.additionalProperties).toBe(false);
      expect(o.required).toEqual(expect.arrayContaining(["name", "kind", "schedule", "params"]));
    }
    const staking = options.find((o) => (props(o).kind as Json).const === "validator-staking")!;
    expect(props(props(staking).params).rankBy).toMatchObject({ enum: ["predictedApr", "stake", "uptime"] });
  });

  it("is plain JSON", () => {
    for (const t of ["config", "strategy"] as const) {
      const s = jsonSchemaFor(t);
      expect(JSON.parse(JSON.stringify(s))).toEqual(s);
    }
  });
});
