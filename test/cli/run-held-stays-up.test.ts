// A config trial: `hlbot run` with a strategy file that does not load logs "no strategy runs until it
// does (fix it, then SIGHUP); the TWAP guards still run", then the process exited at once with Node's
// code 13 (every timer of a daemon with no strategy was unref'd: an unsettled top-level await), unless
// --metrics-port kept a server open. Running TWAPs had no guard, and the SIGHUP reached no process.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildOnce, REPO_ROOT } from "../helpers/build.js";

const dir = mkdtempSync(join(tmpdir(), "hlbot-run-held-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(() => buildOnce(), 120_000);

it("run held by a strategy file that does not load stays up (no --metrics-port) and stops cleanly on SIGTERM", async () => {
  mkdirSync(join(dir, "strategies"));
  const dca = (name: string, amount: string) =>
    `name: ${name}\nkind: twap-accumulate\nschedule: "0 9 * * *"\nparams:\n  coin: HYPE\n  side: buy\n  amountUsd: ${amount}\n  twap:\n    minutes: 30\n`;
  writeFileSync(join(dir, "strategies", "a.yaml"), dca("good", "300"));
  writeFileSync(join(dir, "strategies", "b.yaml"), dca("typo", '"10%"'));
  writeFileSync(
    join(dir, "hlbot.yaml"),
    "network: testnet\nbaseUrl: http://127.0.0.1:9\nstrategies: ./strategies\nstate: ./st\nlimits:\n  maxOrderUsd: 5000\n  maxDailyNotionalUsd: 20000\n  maxStakeMovePerDay: 2000\n",
  );
  const child = spawn(
    process.execPath,
    [join(REPO_ROOT, "bin/hlbot.js"), "run", "--config", join(dir, "hlbot.yaml"), "--dry-run"],
    {
      env: { ...process.env, HLBOT_PRIVATE_KEY: "ab".repeat(32), NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let err = "";
  child.stderr.on("data", (b) => {
    err += String(b);
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
  const early = await Promise.race([exited, new Promise<"up">((r) => setTimeout(() => r("up"), 6_000))]);
  expect(err).toMatch(/the TWAP guards still run/);
  expect(early).toBe("up");
  child.kill("SIGTERM");
  const code = await Promise.race([exited, new Promise<"hung">((r) => setTimeout(() => r("hung"), 20_000))]);
  if (code === "hung") child.kill("SIGKILL");
  expect(code).toBe(0);
}, 60_000);
