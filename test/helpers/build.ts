// Tests that spawn the CLI need an up-to-date dist/: the freshness check and the cross-suite build
// lock live in ./dist.ts; this is the short form for "the CLI".
import { ensureBuilt, REPO_ROOT } from "./dist.js";

export function buildOnce(): void {
  ensureBuilt(["cli/main.js"]);
}

export { REPO_ROOT };
