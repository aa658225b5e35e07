// The layering ARCHITECTURE.md describes, checked on the source: each folder of src/ imports only from
// the layers below it (lib ← venue ← engine ← simulate ← cli; the simulator beside engine, on venue and
// lib), so a new import that runs back up fails here rather than in review.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../../src");

const ALLOWED: Record<string, readonly string[]> = {
  lib: ["lib"],
  venue: ["lib", "venue"],
  engine: ["lib", "venue", "engine"],
  simulator: ["lib", "venue", "simulator"],
  simulate: ["lib", "venue", "engine", "simulator", "simulate"],
  cli: ["lib", "venue", "engine", "simulator", "simulate", "cli"],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

/** Top folder under src/ of a path ("engine" for src/engine/config/loader.ts); files at the root: "". */
function layerOf(path: string): string {
  const parts = relative(SRC, path).split(sep);
  return parts.length > 1 ? parts[0]! : "";
}

function relativeImports(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) out.push(m[1]!);
  return out;
}

describe("layers", () => {
  it("every folder of src/ is a known layer", () => {
    const layers = new Set(sourceFiles(SRC).map(layerOf));
    expect([...layers].filter((l) => !(l in ALLOWED))).toEqual([]);
  });

  it("imports run only down the layers (nothing imports the CLI, the engine does not know the simulator)", () => {
    const wrong: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const from = layerOf(file);
      for (const spec of relativeImports(readFileSync(file, "utf8"))) {
        const to = layerOf(resolve(dirname(file), spec));
        if (!ALLOWED[from]?.includes(to))
          wrong.push(`${relative(SRC, file)} imports ${spec} (${from} → ${to})`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("would catch an import that runs back up", () => {
    // The check itself: an engine file importing the CLI or the simulator is refused.
    const engineFile = join(SRC, "engine", "cycle.ts");
    for (const spec of ["../cli/main.js", "../simulator/index.js"]) {
      const to = layerOf(resolve(dirname(engineFile), spec));
      expect(ALLOWED.engine!.includes(to)).toBe(false);
    }
  });
});
