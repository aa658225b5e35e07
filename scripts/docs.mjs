// Regenerates the configuration reference in README.md from the zod schemas (via the built dist/).
import { readFileSync, writeFileSync } from "node:fs";

const { embedReference } = await import("../dist/engine/config/reference.js");
const path = new URL("../README.md", import.meta.url);
const before = readFileSync(path, "utf8");
const after = embedReference(before);
writeFileSync(path, after);
process.stdout.write(
  before === after ? "README reference already up to date\n" : "README reference regenerated\n",
);
