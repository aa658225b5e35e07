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
  return { ...allowReferences(generated), $id: `https://hlbot.invalid/schema/${target}.json`, title };
}

/** `${NAME}` or `${NAME:-default}` alone or inside text: what the loader replaces before validating. */
export const REFERENCE_SCHEMA = {
  type: "string",
  pattern: "\\$\\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\\}",
  description: "An environment variable reference, replaced when the file is loaded",
} as const;

type Node = Record<string, unknown>;

/** Whether a value may only be a constrained scalar (a number, a boolean, an enum, a pattern). */
function constrainedScalar(n: Node): boolean {
  if (n.enum !== undefined) return true;
  if (n.type === "number" || n.type === "integer" || n.type === "boolean") return true;
  return (
    n.type === "string" && (n.pattern !== undefined || n.format !== undefined || n.minLength !== undefined)
  );
}

/**
 * The loader replaces `${VAR}` references before it validates, so an editor must accept one wherever a
 * scalar is constrained (`maxOrderUsd: ${HLBOT_MAX_ORDER_USD:-5000}`); plain strings accept it already.
 */
function allowReferences(node: unknown): Node {
  if (Array.isArray(node)) return node.map((n) => allowReferences(n)) as unknown as Node;
  if (node === null || typeof node !== "object") return node as Node;
  const original = node as Node;
  // A choice of scalars (a decimal: a number or a decimal string) gets the reference as one more choice.
  if (
    Array.isArray(original.anyOf) &&
    (original.anyOf as Node[]).every((a) => constrainedScalar(a) || a.type === "string")
  )
    return { ...original, anyOf: [...(original.anyOf as Node[]), REFERENCE_SCHEMA] };
  const n: Node = {};
  for (const [k, v] of Object.entries(original)) {
    if (k === "properties" || k === "$defs" || k === "definitions")
      n[k] = Object.fromEntries(Object.entries(v as Node).map(([name, sub]) => [name, allowReferences(sub)]));
    else n[k] = typeof v === "object" && v !== null ? allowReferences(v) : v;
  }
  if (constrainedScalar(n)) {
    const { description, default: fallback, ...rest } = n;
    return {
      ...(description === undefined ? {} : { description }),
      ...(fallback === undefined ? {} : { default: fallback }),
      anyOf: [rest, REFERENCE_SCHEMA],
    };
  }
  return n;
}
