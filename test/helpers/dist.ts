// The compiled CLI and modules in dist/, for tests that need a second real process (child processes
// cannot load TypeScript here). Builds once when any source file is newer than the build, serialised
// across test files with a lock folder so two suites never rewrite dist/ under each other.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const DIST = join(REPO_ROOT, "dist");
export const BIN = join(REPO_ROOT, "bin", "hlbot.js");

function newestMtime(dir: string, ext: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path, ext));
    else if (entry.name.endsWith(ext)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function isFresh(required: readonly string[]): boolean {
  const srcNewest = newestMtime(join(REPO_ROOT, "src"), ".ts");
  return required.every((rel) => {
    const path = join(DIST, rel);
    return existsSync(path) && statSync(path).mtimeMs >= srcNewest;
  });
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Makes sure dist/ holds a build at least as new as src/ (for the listed files); builds when not. */
export function ensureBuilt(required: readonly string[]): void {
  if (isFresh(required)) return;
  const lock = join(REPO_ROOT, "node_modules", ".hlbot-build-lock");
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock left behind by a killed test run is older than any real build: take it over.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 60_000) rmdirSync(lock);
      } catch {
        // Released (or taken over) by someone else in the meantime: just try again.
      }
      if (Date.now() > deadline) throw new Error(`build lock ${lock} held for too long`);
      sleepSync(200);
    }
  }
  try {
    if (isFresh(required)) return;
    try {
      execFileSync(
        process.execPath,
        [join(REPO_ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"],
        {
          cwd: REPO_ROOT,
          stdio: "pipe",
        },
      );
    } catch {
      // tsc exits non-zero when any file (possibly someone else's work in progress) has a type error,
      // but it still emits; the freshness check below decides.
    }
    const missing = required.filter((rel) => !existsSync(join(DIST, rel)));
    if (missing.length > 0) throw new Error(`build did not produce ${missing.join(", ")}`);
  } finally {
    rmdirSync(lock);
  }
}

/** file:// URL of a compiled module, e.g. distUrl("venue/nonces.js"). */
export function distUrl(rel: string): string {
  return pathToFileURL(join(DIST, rel)).href;
}
