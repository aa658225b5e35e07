// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references are what these tests check.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { jsonSchemaFor } from "../../../src/engine/config/jsonSchema.js";
import { STRATEGY_KINDS } from "../../../src/engine/strategies/registry.js";

type Json = Record<string, unknown>;
const props = (s: unknown) => (s as { properties: Json }).properties;
const ROOT = join(import.meta.dirname, "../../..");

describe("JSON Schema for editors", () => {
  it("describes the bot file: strict, with enums, defaults and required limits", () => {
    const s = jsonSchemaFor("config");
    expect(s.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(s.title).toBe("hlbot bot configuration");
    expect(s.additionalProperties).toBe(false);
    expect(s.required).toEqual(["network", "limits"]);
    // Constrained values also accept a ${VAR} reference, which the loader replaces before validating.
    expect((props(s).network as { anyOf: Json[] }).anyOf[0]).toMatchObject({ enum: ["mainnet", "testnet"] });
    expect(props(s).mode).toMatchObject({ default: "dry-run" });
    expect((props(s).mode as { anyOf: Json[] }).anyOf[0]).toMatchObject({ enum: ["dry-run", "live"] });
    const limits = props(s).limits as Json;
    expect(limits.required).toEqual(["maxOrderUsd", "maxDailyNotionalUsd", "maxStakeMovePerDay"]);
    // Decimals: a YAML number or a decimal string.
    expect((props(limits).maxOrderUsd as { anyOf: Json[] }).anyOf.map((o) => o.type)).toEqual([
      "number",
      "string",
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
    expect((props(props(staking).params).rankBy as { anyOf: Json[] }).anyOf[0]).toMatchObject({
      enum: ["predictedApr", "stake", "uptime"],
    });
  });

  it("accepts every shipped file as an editor would see it, ${VAR} references included, and still catches errors", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const validate = {
      config: ajv.compile(jsonSchemaFor("config")),
      strategy: ajv.compile(jsonSchemaFor("strategy")),
    };
    const files: Array<[keyof typeof validate, string]> = [
      ["config", "config/default.yaml"],
      ["config", "config/docker.yaml"],
      ["config", "config/demo.yaml"],
      ...readdirSync(join(ROOT, "strategies")).map(
        (f) => ["strategy", `strategies/${f}`] as [keyof typeof validate, string],
      ),
      ...readdirSync(join(ROOT, "config/demo-strategies")).map(
        (f) => ["strategy", `config/demo-strategies/${f}`] as [keyof typeof validate, string],
      ),
    ];
    for (const [kind, file] of files) {
      const data = parse(readFileSync(join(ROOT, file), "utf8"));
      const ok = validate[kind](data);
      expect(ok, `${file}: ${JSON.stringify(validate[kind].errors)}`).toBe(true);
    }
    expect(
      validate.config({
        network: "testnet",
        mode: "${HLBOT_MODE:-live}",
        limits: { maxOrderUsd: "${X}", maxDailyNotionalUsd: 1, maxStakeMovePerDay: 1 },
      }),
    ).toBe(true);
    expect(
      validate.config({
        network: "tesnet",
        limits: { maxOrderUsd: 1, maxDailyNotionalUsd: 1, maxStakeMovePerDay: 1 },
      }),
    ).toBe(false);
    expect(
      validate.config({
        network: "testnet",
        mode: "$HLBOT_MODE",
        limits: { maxOrderUsd: 1, maxDailyNotionalUsd: 1, maxStakeMovePerDay: 1 },
      }),
    ).toBe(false);
  });

  it("is plain JSON", () => {
    for (const t of ["config", "strategy"] as const) {
      const s = jsonSchemaFor(t);
      expect(JSON.parse(JSON.stringify(s))).toEqual(s);
    }
  });
});
