// `hlbot simulate` as a real process on the built CLI: `npm start`'s command ends with a summary with
// no key and no network; --json and --report give the same figures and a self-contained file; bad
// arguments exit 2 before anything runs.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keccak_256 } from "@noble/hashes/sha3";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils";
import { computeAddress } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, ensureBuilt, REPO_ROOT } from "../helpers/dist.js";

const temp = mkdtempSync(join(tmpdir(), "hlbot-cli-simulate-"));
beforeAll(
  () => ensureBuilt(["cli/main.js", "cli/commands/simulate.js", "simulate/runner.js", "simulator/index.js"]),
  120_000,
);
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** Runs a command line (argv[0] = node) with an environment holding no key and no config. */
function run(argv: string[]) {
  const [cmd, ...args] = argv;
  const r = spawnSync(cmd === "node" ? process.execPath : (cmd ?? ""), args, {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? "" },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const hlbot = (args: string[]) => run(["node", BIN, "simulate", ...args]);

function demoKey(seed: number): string {
  return bytesToHex(keccak_256(utf8ToBytes(`hlbot simulate demo account\nseed ${seed}\nattempt 0`)));
}

describe("hlbot simulate", () => {
  it("npm start's command ends with a summary, with no key and no network", () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
      scripts: { start: string };
    };
    const argv = pkg.scripts.start.split(" ");
    expect(argv.slice(0, 3)).toEqual(["node", "bin/hlbot.js", "simulate"]);
    const r = run([...argv, "--days", "1"]);
    expect(r.stderr).not.toMatch(/error|warn/i);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe(
      "Simulated 1 day(s) of the demo scenario (seed 42, testnet signatures): 2025-01-01 00:00 → 2025-01-02 00:00 UTC",
    );
    for (const heading of ["Portfolio (USDC at mid prices", "TWAPs (", "Trades", "Fees: ", "Staking (HYPE)"])
      expect(r.stdout).toContain(heading);
    // The last section is the skipped decisions, and the summary is the last thing on stdout.
    expect(r.stdout).toMatch(
      /\nSkipped and blocked \(\d+ decisions, \d+ distinct reasons[^\n]*\n( {2}.+\n)+$/,
    );
    expect(r.stderr).toMatch(/^hlbot simulate: 1\.00 simulated day\(s\) in \d+\.\d\d s/m);
    const key = demoKey(42);
    expect(`${r.stdout}${r.stderr}`.toLowerCase()).not.toContain(key);
    expect(r.stdout).toContain(computeAddress(`0x${key}`).toLowerCase());
  });

  it("simulates the bot file every command finds (./hlbot.yaml, $HLBOT_CONFIG), else the demo", () => {
    const home = mkdtempSync(join(temp, "home-"));
    const bot = mkdtempSync(join(temp, "bot-"));
    const elsewhere = mkdtempSync(join(temp, "elsewhere-"));
    const env = { PATH: process.env.PATH ?? "", HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
    const at = (cwd: string, args: string[], extra: Record<string, string> = {}) => {
      const r = spawnSync(process.execPath, [BIN, ...args], {
        cwd,
        env: { ...env, ...extra },
        encoding: "utf8",
        timeout: 60_000,
      });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    expect(at(bot, ["init"]).code).toBe(0);
    const strategiesLine = (r: { stdout: string }) =>
      r.stdout.split("\n").find((l) => l.startsWith("Strategies"));
    const own = at(bot, ["simulate", "--days", "1"]);
    expect(own.code).toBe(0);
    expect(strategiesLine(own)).toMatch(/^Strategies of hlbot\.yaml: purr-dca /);
    const named = at(elsewhere, ["simulate", "--days", "1", "--json"], {
      HLBOT_CONFIG: join(bot, "hlbot.yaml"),
    });
    expect(named.code).toBe(0);
    expect(JSON.parse(named.stdout).configFile).toBe(join(bot, "hlbot.yaml"));
    const none = at(elsewhere, ["simulate", "--days", "1"]);
    expect(none.code).toBe(0);
    expect(strategiesLine(none)).toMatch(/^Strategies of .*config\/demo\.yaml: hype-dca /);
  });

  it("--json prints the summary as JSON and --report writes a self-contained HTML file", () => {
    const report = join(temp, "report.html");
    const r = hlbot(["--days", "1", "--seed", "7", "--json", "--report", report]);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout) as {
      seed: number;
      account: string;
      twaps: Array<{ twapId: number }>;
      period: { days: number };
    };
    expect(summary.seed).toBe(7);
    expect(summary.period.days).toBe(1);
    expect(summary.account).toBe(computeAddress(`0x${demoKey(7)}`).toLowerCase());
    expect(summary.twaps.length).toBeGreaterThan(0);
    expect(r.stderr).toContain(`report written to ${report}`);
    expect(existsSync(report)).toBe(true);
    const html = readFileSync(report, "utf8");
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html.match(/<svg /g)).toHaveLength(3);
    expect(html).toContain(`"twapId":${summary.twaps[0]?.twapId}`);
    expect(html.toLowerCase()).not.toContain(demoKey(7));
  });

  it("warns when no strategy is enabled, and still shows the venue and buy and hold", () => {
    const dir = join(temp, "no-strategies");
    mkdirSync(join(dir, "empty"), { recursive: true });
    writeFileSync(
      join(dir, "hlbot.yaml"),
      "network: testnet\nmode: dry-run\nstrategies: ./empty\nlimits: { maxOrderUsd: 500, maxDailyNotionalUsd: 2000, maxStakeMovePerDay: 100 }\n",
    );
    const r = hlbot(["--config", join(dir, "hlbot.yaml"), "--days", "1"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("hlbot simulate: warning: no enabled strategy");
    expect(r.stdout).toMatch(/Strategies of .*: none enabled/);
    expect(r.stdout).toContain("buy and hold");
  });

  it("says what config validate warns of in the summary, its --json and its report (not only a log line)", () => {
    // A year-long trial: a DCA buying HYPE beside a 50/50 rebalancer that sells it back, warned of only
    // in a JSON log line at start; the year's report showed neither.
    const dir = join(temp, "warned");
    mkdirSync(join(dir, "s"), { recursive: true });
    writeFileSync(
      join(dir, "s", "dca.yaml"),
      'name: hype-dca\nkind: twap-accumulate\nschedule: "30 8 * * *"\nparams: { coin: HYPE, side: buy, amountUsd: 200, twap: { minutes: 60 } }\n',
    );
    writeFileSync(
      join(dir, "s", "rebal.yaml"),
      'name: hype-usdc-5050\nkind: twap-rebalance\nschedule: "0 * * * *"\nparams: { targets: { HYPE: 0.5, USDC: 0.5 }, band: 0.05, twap: { minutes: 60 } }\n',
    );
    const bot = join(dir, "hlbot.yaml");
    writeFileSync(
      bot,
      "network: testnet\nmode: dry-run\nstrategies: ./s\nlimits: { maxOrderUsd: 5000, maxDailyNotionalUsd: 20000, maxStakeMovePerDay: 100 }\n",
    );
    const said = /hype-dca buys HYPE, which hype-usdc-5050 holds at 0\.5 of its portfolio.*trades them back/;
    const text = hlbot(["--config", bot, "--days", "1"]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /\nWarnings \(as `hlbot config validate` gives them\):\n {2}hype-dca buys HYPE/,
    );
    expect(text.stderr).not.toMatch(said);
    const report = join(dir, "report.html");
    const json = hlbot(["--config", bot, "--days", "1", "--json", "--report", report]);
    const summary = JSON.parse(json.stdout) as { warnings: string[] };
    expect(summary.warnings).toEqual([expect.stringMatching(said)]);
    expect(readFileSync(report, "utf8")).toMatch(said);
  });

  it.each([
    [["--days", "-1"], /--days: expected a number of days above 0/],
    [["--days", "0"], /--days: expected a number of days above 0/],
    [["--from", "2025-01-05", "--to", "2025-01-01"], /--to .* must be after --from/],
    [["--days", "2", "--to", "2025-01-09"], /either --to or --days/],
    [
      ["--to", "2024-12-01"],
      /^hlbot: --to: the end 2024-12-01T00:00:00.000Z is not after the start 2025-01-01T00:00:00.000Z \(the start of the scenario .*give --from\)$/m,
    ],
    [["--from", "yesterday"], /--from: expected an ISO date/],
    [["--seed", "-3"], /--seed: expected a whole number/],
    [["--scenario", "no-such-scenario.yaml"], /no-such-scenario\.yaml: scenario: file not found/],
    // Read as the bot files are (a config trial: /dev/zero was read until memory ran out).
    [
      ["--scenario", "/dev/zero"],
      /\/dev\/zero: scenario: is not a regular file \(a device, FIFO or socket\)/,
    ],
    [["--prices", "/dev/zero"], /\/dev\/zero: the candle file: is not a regular file/],
    [["--from", "2025-02-30"], /--from: .*\(no such day: 2025-02 has no day 30\)/],
    [["--config", "no-such-config.yaml"], /file not found/],
    [
      ["--report", "no-such-folder/report.html"],
      /--report: the folder of no-such-folder\/report.html does not exist/,
    ],
  ])("exits 2 for %j", (args, message) => {
    const r = hlbot(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe("");
  });
});
