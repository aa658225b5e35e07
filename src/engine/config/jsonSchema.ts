// JSON Schema for editors, generated from the same zod schemas the loader validates with, so editor
// completion and `hlbot config validate` cannot disagree. Describes the input side: decimals accept a
// number or a decimal string, defaults are shown, unknown keys are not allowed.
import * as z from "zod";
import { botConfigSchema, strategyFileSchema } from "./schema.js";

export type SchemaTarget = "config" | "strategy";

export function jsonSchemaFor(target: SchemaTarget): Record<string, unknown> {
  const schema = target === "config" ? botConfigSchema : strategyFileSchema;
  const generated = z.toJSONSchema(schema, { io: "input", unrepresentable: "any", target: "draft-2020-12" });
  const title = target === "config" ? "hlbot bot configuration" : "hlbot strategy file";
  return { ...generated, $id: `https://hlbot.invalid/schema/${target}.json`, title };
}
