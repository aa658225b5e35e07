// Tests that spawn the CLI or load compiled modules in child processes need an up-to-date dist/.
// `npm test` builds before running vitest; when a single test file is run on its own, this builds once.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");
let built = false;

export function buildOnce(): void {
  if (built || (process.env.HLBOT_SKIP_BUILD === "1" && existsSync(resolve(ROOT, "dist/cli/main.js"))))
    return;
  try {
    execFileSync(
      process.execPath,
      [resolve(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"],
      {
        cwd: ROOT,
        stdio: "pipe",
      },
    );
  } catch {
    // tsc emits even when some file has a type error; the type check itself is `npm run typecheck`'s job.
  }
  built = true;
}

export const REPO_ROOT = ROOT;
