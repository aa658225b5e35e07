// A security audit: `data fetch --out FILE` and `simulate --report FILE` pointed at an existing file that
// is not theirs (a typo, tab completion onto key.hex or a keystore). data fetch cut the file's "incomplete
// last line" before it checked the header, then refused: a key file written without a final newline
// (printf, echo -n) or a keystore (one JSON line) was emptied. simulate overwrote it with a report.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";

const KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function run(argv: string[]) {
  let stderr = "";
  const code = await main(argv, {
    stdout: () => undefined,
    stderr: (t) => {
      stderr += t;
    },
    env: {},
    isTTY: false,
  });
  return { code, stderr };
}

function keyFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "hlbot-out-"));
  dirs.push(dir);
  const file = join(dir, "key.hex");
  writeFileSync(file, KEY, { mode: 0o600 }); // no final newline
  return file;
}

it("data fetch --out on a file that is not a candle file refuses and leaves it whole", async () => {
  const file = keyFile();
  // A base URL nobody listens on: the file was damaged before anything was sent.
  const r = await run([
    "data",
    "fetch",
    "--coin",
    "HYPE",
    "--interval",
    "1h",
    "--from",
    "2026-11-01",
    "--out",
    file,
    "--base-url",
    "http://127.0.0.1:9",
  ]);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/expected the header/);
  expect(r.stderr).not.toMatch(/dropped the incomplete last line/);
  expect(readFileSync(file, "utf8")).toBe(KEY);
});

it("simulate --report on a file that is not an HTML report refuses and leaves it whole", async () => {
  const file = keyFile();
  const r = await run(["simulate", "--days", "1", "--report", file]);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/exists and is not an HTML report; it is not overwritten/);
  expect(readFileSync(file, "utf8")).toBe(KEY);
});

it("simulate --report replaces a report written before", async () => {
  const file = join(mkdtempSync(join(tmpdir(), "hlbot-out-")), "r.html");
  dirs.push(join(file, ".."));
  writeFileSync(file, "<!doctype html>\n<html><body>old</body></html>\n");
  const r = await run(["simulate", "--days", "1", "--report", file]);
  expect(r.code).toBe(0);
  expect(readFileSync(file, "utf8")).not.toContain("old</body>");
}, 60_000);
