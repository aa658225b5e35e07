// Where the repository is, found from this module's location (the suite runs compiled, from
// bench/dist/bench/…), so scenario and config files are named explicitly rather than relative to
// whichever copy of the sources is running.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, "utf8")) as { name?: string }).name === "hlbot")
      return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error("cannot find the hlbot repository above the benchmark files");
    dir = up;
  }
}

export const REPO_ROOT = findRoot();
export const DEMO_SCENARIO = join(REPO_ROOT, "config/scenarios/demo.yaml");
export const DEMO_CONFIG = join(REPO_ROOT, "config/demo.yaml");
export const EXAMPLE_STRATEGIES = join(REPO_ROOT, "strategies");
export const CLI = join(REPO_ROOT, "bin/hlbot.js");
export const CLI_ENTRY = join(REPO_ROOT, "dist/cli/main.js");
/** The public Anvil/Hardhat development account #0: the demo scenario's funded "demo" account. */
export const DEMO_ACCOUNT = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
