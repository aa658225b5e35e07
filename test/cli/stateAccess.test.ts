// A state folder the user running hlbot cannot write (a folder made by root, a backup restored
// read-only): the built CLI as a real process, as an unprivileged user. `once`, `stop` and a manual
// --live action name the folder and what to do, and exit 2 (configuration), not 1 (a venue failure).
// Root ignores file modes, so under root the child runs as nobody (uid 65534).
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildOnce, REPO_ROOT } from "../helpers/build.js";
import { ACCOUNT_KEY } from "../helpers/exchange.js";

const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;
/**
 * Under root the unprivileged child must be able to read the checkout (a clone under /root is not):
 * otherwise these cases cannot be run here, and are skipped rather than failing for that reason.
 */
const childCanRead =
  !asRoot ||
  spawnSync(
    process.execPath,
    [
      "-e",
      `for (const f of process.argv.slice(1)) require("node:fs").accessSync(f, require("node:fs").constants.R_OK)`,
      join(REPO_ROOT, "bin/hlbot.js"),
      join(REPO_ROOT, "package.json"),
      join(REPO_ROOT, "node_modules/better-sqlite3/package.json"),
    ],
    { uid: NOBODY, gid: NOBODY, cwd: tmpdir() },
  ).status === 0;

let dir: string;
beforeAll(() => buildOnce(), 120_000);
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hlbot-state-access-"));
  chmodSync(dir, 0o777); // the unprivileged child reads the bot file and writes nothing else here
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function hlbot(
  args: string[],
  o: { unprivileged?: boolean } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, "bin/hlbot.js"), ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", HLBOT_PRIVATE_KEY: ACCOUNT_KEY },
      ...(o.unprivileged && asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      expect(`${stdout}${stderr}`.toLowerCase()).not.toContain(ACCOUNT_KEY.slice(2));
      resolve({ code, stdout, stderr });
    });
  });
}

function writeBot(): string {
  const file = join(dir, "hlbot.yaml");
  writeFileSync(
    file,
    [
      "network: testnet",
      "baseUrl: http://127.0.0.1:9",
      "mode: dry-run",
      `strategies: ${join(REPO_ROOT, "strategies/twap-accumulate.yaml")}`,
      "state: ./state",
      "limits: { maxOrderUsd: 1000, maxDailyNotionalUsd: 5000, maxStakeMovePerDay: 100 }",
      "log: { level: warn, format: json }",
      "",
    ].join("\n"),
  );
  chmodSync(file, 0o644);
  return file;
}

/** Makes the folder and everything in it read-only (and readable, so only writing fails). */
function readOnly(folder: string): void {
  for (const name of readdirSync(folder)) chmodSync(join(folder, name), 0o444);
  chmodSync(folder, 0o555);
}

describe.skipIf(!childCanRead)("a state folder this user cannot write", () => {
  it("once (a journal restored read-only, or an empty read-only folder) names it and exits 2", async () => {
    const bot = writeBot();
    const state = join(dir, "state");
    // A journal made by an earlier command, then left read-only: SQLite's "attempt to write a readonly database".
    const first = await hlbot(["history", "--config", bot]);
    expect(first.code).toBe(0);
    readOnly(state);
    const run = await hlbot(["once", "--config", bot], { unprivileged: true });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`the state folder ${state} cannot be written by this user`);
    expect(run.stderr).toContain(`chown -R "$(id -un)" ${state}`);
    expect(run.stderr).toContain("state:");

    // An empty folder nobody but its owner may write.
    chmodSync(state, 0o755);
    rmSync(state, { recursive: true });
    mkdirSync(state, { mode: 0o555 });
    const empty = await hlbot(["once", "--config", bot], { unprivileged: true });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain(`the state folder ${state} cannot be written by this user`);
  });

  it("a manual --live action names it and exits 2, nothing sent", async () => {
    const state = join(dir, "st");
    mkdirSync(state, { mode: 0o555 });
    chmodSync(state, 0o555);
    const run = await hlbot(
      ["stake", "--amount", "1", "--live", "--state", state, "--base-url", "http://127.0.0.1:9"],
      { unprivileged: true },
    );
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(`the state folder ${state} cannot be written by this user`);
    expect(run.stderr).toContain("--state");
  });

  it("stop says the kill switch is NOT engaged, where, and what to do; exit 2", async () => {
    const bot = writeBot();
    const state = join(dir, "state");
    mkdirSync(state, { mode: 0o555 });
    chmodSync(state, 0o555);
    const run = await hlbot(["stop", "--config", bot], { unprivileged: true });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`the kill switch is NOT engaged: ${join(state, "STOP")} cannot be written`);
    expect(run.stderr).toMatch(/limits\.killSwitchFile/);
  });
});

/** A tmpfs mounted at `at`, or false where this process may not mount (not root, a container without it). */
function mountTmpfs(at: string): boolean {
  return asRoot && spawnSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", at]).status === 0;
}

describe("a state folder on a read-only file system", () => {
  it("once says the mount is read-only (no chown helps) for a journal there and for a folder to be made; exit 2", async (ctx) => {
    const bot = writeBot();
    const mnt = join(dir, "state");
    mkdirSync(mnt);
    if (!mountTmpfs(mnt)) ctx.skip();
    try {
      const first = await hlbot(["history", "--config", bot]);
      expect(first.code).toBe(0);
      expect(spawnSync("mount", ["-o", "remount,ro", mnt]).status).toBe(0);
      const run = await hlbot(["once", "--config", bot]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`the state folder ${mnt} is on a read-only file system`);
      expect(run.stderr).toContain(
        "mount it read-write, or point `state:` in the bot file at a folder on a writable one",
      );
      expect(run.stderr).not.toContain("chown");
      // The kill switch cannot be engaged there either: said, with where to put it instead.
      const stop = await hlbot(["stop", "--config", bot]);
      expect(stop.code).toBe(2);
      expect(stop.stderr).toContain(
        `the kill switch is NOT engaged: ${join(mnt, "STOP")} is on a read-only file system; set limits.killSwitchFile`,
      );
      expect(stop.stderr).not.toContain("chown");
      // A state folder still to be made under the read-only mount (Node's mkdir says ENOENT there).
      writeFileSync(bot, `${readFileSync(bot, "utf8").replace("state: ./state", "state: ./state/inner")}`);
      const inner = await hlbot(["once", "--config", bot]);
      expect(inner.code).toBe(2);
      expect(inner.stderr).toContain(`the state folder ${join(mnt, "inner")} is on a read-only file system;`);
      expect(inner.stderr).not.toContain("ENOENT");
    } finally {
      spawnSync("umount", [mnt]);
    }
  });
});
