// The way in, as a new user meets it: `hlbot init` in an empty folder, then `config validate`,
// `simulate` and `plan --unsigned` against a local venue with no other step; a second init changes
// nothing; the bot file is found from any directory (./hlbot.yaml, $XDG_CONFIG_HOME, the packaged
// default); a bot file without `state:` keeps its state where every command finds it; `hlbot venue
// --host` listens where it is told.
import { type ChildProcess, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, resolveConfigPath } from "../../src/engine/config/loader.js";
import { defaultStateDir } from "../../src/lib/stateDb.js";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { BIN, ensureBuilt, REPO_ROOT } from "../helpers/dist.js";

const DEMO_ACCOUNT = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
let sim: (Simulator & { url: string }) | undefined;
const work = mkdtempSync(join(tmpdir(), "hlbot-init-"));

beforeAll(async () => {
  ensureBuilt(["cli/main.js", "cli/commands/init.js"]);
  sim = await startSimulator({ clock: "real", rateLimit: false });
}, 120_000);
afterAll(async () => {
  await sim?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** The built CLI in `cwd`, with only the environment given (HOME points into the temp folder). */
function cli(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc: ChildProcess = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: join(work, "home"), ...env },
  });
  let stdout = "";
  let stderr = "";
  proc.stdout!.on("data", (d: Buffer) => {
    stdout += d;
  });
  proc.stderr!.on("data", (d: Buffer) => {
    stderr += d;
  });
  return new Promise((resolve) => proc.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe("hlbot init", () => {
  it("writes a setup that validates, simulates and plans with no other step, and never overwrites", async () => {
    const dir = join(work, "fresh");
    mkdirSync(dir);
    const init = await cli(["init"], dir);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toMatch(/Next:\n {2}hlbot config validate/);
    // Into another folder: one `cd`, then commands that paste one after another (a `cd` on each line
    // failed from the second on).
    const other = await cli(["init", "sub"], dir);
    expect(other.code, other.stderr).toBe(0);
    expect(other.stdout).toMatch(/Next:\n {2}cd sub\n {2}hlbot config validate .*\n {2}hlbot simulate /);
    expect(other.stdout.match(/cd /g)).toHaveLength(1);
    // A folder with a space is quoted, so the line pastes (`cd new dir/sub`: too many arguments).
    const spaced = await cli(["init", "new dir/it's"], dir);
    expect(spaced.code, spaced.stderr).toBe(0);
    expect(spaced.stdout).toMatch(/Next:\n {2}cd 'new dir\/it'\\''s'\n/);
    const bot = readFileSync(join(dir, "hlbot.yaml"), "utf8");
    expect(bot.split("\n")[0]).toBe("# yaml-language-server: $schema=./schema/config.json");
    expect(bot).toMatch(/^network: testnet$/m);
    expect(bot).toMatch(/^mode: dry-run$/m);
    expect(bot).toMatch(/^state: \.\/state$/m);
    const strategy = readFileSync(join(dir, "strategies", "twap-rebalance.yaml"), "utf8");
    expect(strategy.split("\n")[0]).toBe("# yaml-language-server: $schema=../schema/strategy.json");
    expect(JSON.parse(readFileSync(join(dir, "schema", "strategy.json"), "utf8")).title).toBe(
      "hlbot strategy file",
    );

    const validate = await cli(["config", "validate"], dir);
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toMatch(/^ok hlbot\.yaml: testnet, dry-run, 4 strategies \(3 enabled\)/);

    const simulate = await cli(["simulate", "--config", "hlbot.yaml", "--days", "2"], dir);
    expect(simulate.code, simulate.stderr).toBe(0);
    expect(simulate.stdout).toMatch(/Cycles: \d+, 0 failed/);

    const plan = await cli(["plan", "--unsigned", "--base-url", sim!.url], dir, {
      HLBOT_ACCOUNT: DEMO_ACCOUNT,
    });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(`plan for ${DEMO_ACCOUNT} on testnet (unsigned`);
    // Each decision once: the report on stdout, no info log repeating it on stderr.
    expect(plan.stderr).not.toMatch(/twapOrder unsigned/);

    const before = statSync(join(dir, "hlbot.yaml")).mtimeMs;
    const again = await cli(["init"], dir);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/not overwriting what is there: hlbot\.yaml/);
    expect(statSync(join(dir, "hlbot.yaml")).mtimeMs).toBe(before);
  }, 90_000);

  it("does not put the examples beside strategies of your own (they would run with them)", async () => {
    const dir = join(work, "own-strategies");
    mkdirSync(join(dir, "strategies"), { recursive: true });
    writeFileSync(join(dir, "strategies", "mine.yaml"), "name: mine\n");
    const r = await cli(["init"], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /not overwriting what is there: .*strategies \(it holds strategies: the examples would run beside them\)/,
    );
    expect(readdirSync(join(dir, "strategies"))).toEqual(["mine.yaml"]);
    expect(existsSync(join(dir, "hlbot.yaml"))).toBe(false);
  });

  it("says a file given as the folder is a file (exit 2), not EEXIST", async () => {
    const dir = join(work, "a-file-parent");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "afile"), "x");
    const r = await cli(["init", "afile"], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "hlbot: afile is a file, not a folder: give a folder to write the starter setup into (hlbot init DIR)\n",
    );
  });
});

describe("finding the bot file and the state", () => {
  it("--config, $HLBOT_CONFIG, ./hlbot.yaml, $XDG_CONFIG_HOME/hlbot/config.yaml, then the packaged default", () => {
    const dir = join(work, "discover");
    const xdg = join(work, "xdg");
    mkdirSync(join(xdg, "hlbot"), { recursive: true });
    mkdirSync(dir, { recursive: true });
    // Nothing of the user's: the configuration shipped with hlbot, whatever the working directory.
    expect(resolveConfigPath(undefined, { HOME: join(work, "nohome") }, dir)).toBe(
      join(REPO_ROOT, "config/default.yaml"),
    );
    writeFileSync(join(xdg, "hlbot", "config.yaml"), "");
    expect(resolveConfigPath(undefined, { XDG_CONFIG_HOME: xdg }, dir)).toBe(
      join(xdg, "hlbot", "config.yaml"),
    );
    writeFileSync(join(dir, "hlbot.yaml"), "");
    expect(resolveConfigPath(undefined, { XDG_CONFIG_HOME: xdg }, dir)).toBe(join(dir, "hlbot.yaml"));
    expect(resolveConfigPath(undefined, { HLBOT_CONFIG: "/etc/hlbot/bot.yaml" }, dir)).toBe(
      "/etc/hlbot/bot.yaml",
    );
    expect(resolveConfigPath("x.yaml", { HLBOT_CONFIG: "/etc/hlbot/bot.yaml" }, dir)).toBe(
      join(dir, "x.yaml"),
    );
  });

  it("a bot file without state: $HLBOT_STATE_DIR, then systemd's $STATE_DIRECTORY, then $XDG_STATE_HOME/hlbot", async () => {
    expect(defaultStateDir({ HLBOT_STATE_DIR: "/a", STATE_DIRECTORY: "/b", XDG_STATE_HOME: "/c" })).toBe(
      "/a",
    );
    expect(defaultStateDir({ STATE_DIRECTORY: "/var/lib/hlbot:/var/lib/other", XDG_STATE_HOME: "/c" })).toBe(
      "/var/lib/hlbot",
    );
    expect(defaultStateDir({ XDG_STATE_HOME: "/c" })).toBe("/c/hlbot");
    expect(defaultStateDir({ HOME: "/home/u" })).toBe("/home/u/.local/state/hlbot");
    const file = join(work, "nostate.yaml");
    mkdirSync(join(work, "nostate-strategies"), { recursive: true });
    writeFileSync(
      file,
      "network: testnet\nstrategies: ./nostate-strategies\nlimits: { maxOrderUsd: 1, maxDailyNotionalUsd: 1, maxStakeMovePerDay: 1 }\n",
    );
    const c = await loadConfig(file, { XDG_STATE_HOME: join(work, "state-home") });
    expect(c.state).toBe(join(work, "state-home", "hlbot"));
    expect(c.limits.killSwitchFile).toBe(join(work, "state-home", "hlbot", "STOP"));
  });

  it("config validate and status --user from a folder with nothing in it use the packaged default", async () => {
    const dir = join(work, "empty");
    mkdirSync(dir, { recursive: true });
    const r = await cli(["config", "validate"], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ok .*config\/default\.yaml: testnet, dry-run/);
    // status of any account, with no bot file of one's own.
    const status = await cli(["status", "--user", DEMO_ACCOUNT, "--base-url", sim!.url], dir);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`Account ${DEMO_ACCOUNT} on testnet`);
  });
});

describe("hlbot venue --host", () => {
  it("listens on the interface it is given", async () => {
    const proc = spawn(process.execPath, [BIN, "venue", "--host", "0.0.0.0", "--port", "0"], {
      env: { PATH: process.env.PATH ?? "" },
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        proc.stdout.on("data", (d: Buffer) => {
          out += d;
          if (out.includes("\n")) resolve(out.trim());
        });
        proc.on("close", () => reject(new Error("venue exited")));
      });
      expect(url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
      const port = Number(url.split(":").at(-1));
      const res = await fetch(`http://127.0.0.1:${port}/info`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ type: "spotMeta" }),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { tokens: unknown[] }).tokens.length).toBeGreaterThan(0);
    } finally {
      proc.kill("SIGTERM");
    }
  });
});
