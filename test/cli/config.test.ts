// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these tests are about ${ENV} references in YAML text.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildOnce, REPO_ROOT } from "../helpers/build.js";

/** Runs the built CLI in a child process, with an environment holding only what the test gives. */
function hlbot(args: string[], env: Record<string, string> = {}, cwd = REPO_ROOT) {
  const r = spawnSync(process.execPath, [join(REPO_ROOT, "bin/hlbot.js"), ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", ...env },
    encoding: "utf8",
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A key variable that is set (config validate checks only that): a key-shaped value, as a real one is. */
const SET_KEY = `0x${"11".repeat(32)}`;
const temp = mkdtempSync(join(tmpdir(), "hlbot-cli-config-"));
beforeAll(() => buildOnce(), 120_000);
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe("hlbot config validate", () => {
  it("exits 0 for the shipped config/default.yaml and lists its strategies", () => {
    const r = hlbot(["config", "validate"]);
    expect(r.stderr).not.toMatch(/error/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ok config\/default\.yaml: testnet, dry-run, 4 strategies \(3 enabled\)$/m);
    for (const f of ["twap-rebalance", "twap-accumulate", "validator-staking", "link-staking"]) {
      expect(r.stdout).toContain(`strategies/${f}.yaml`);
    }
    // The key variable is only mentioned, never needed, to validate.
    expect(r.stderr).toMatch(/HLBOT_PRIVATE_KEY is not set/);
    // Not when its file is given instead (Docker and Kubernetes secrets; an operator's trial).
    const keyFile = join(temp, "key.hex");
    writeFileSync(keyFile, `${SET_KEY}\n`, { mode: 0o600 });
    expect(hlbot(["config", "validate"], { HLBOT_PRIVATE_KEY_FILE: keyFile }).stderr).not.toMatch(
      /is not set/,
    );
    // With it set, the one warning of the shipped set is all stderr says: the PURR DCA pays in the USDC
    // the rebalancer holds at 50% (staking withdraws what the rebalancer's sales lack: withdrawForSales).
    expect(hlbot(["config", "validate"], { HLBOT_PRIVATE_KEY: SET_KEY }).stderr).toMatch(
      /^warning: purr-dca pays for its buys in USDC, which hype-usdc-5050 holds at 0\.5 of its portfolio[^\n]*about 50% of each run is paid with them[^\n]*\n$/,
    );
  });

  it("exits 0 for valid strategy files given directly, and with --config or $HLBOT_CONFIG", () => {
    const files = ["strategies/twap-rebalance.yaml", "strategies/validator-staking.yaml"];
    const r = hlbot(["config", "validate", ...files]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    // Each schedule with its next three runs (UTC): the cadence in dates.
    const at = "\\d{4}-\\d\\d-\\d\\d (\\d\\d):(\\d\\d)";
    const hourly = lines[0]!.match(
      new RegExp(
        `^ok strategies/twap-rebalance\\.yaml: strategy hype-usdc-5050 \\(twap-rebalance, schedule "0 \\* \\* \\* \\*"; next ${at}, ${at}, ${at} UTC\\)$`,
      ),
    );
    expect(hourly?.slice(1).filter((_, i) => i % 2 === 1)).toEqual(["00", "00", "00"]);
    const sixHourly = lines[1]!.match(
      new RegExp(
        `^ok strategies/validator-staking\\.yaml: strategy hype-staking \\(validator-staking, schedule "15 \\*/6 \\* \\* \\*"; next ${at}, ${at}, ${at} UTC\\)$`,
      ),
    );
    const hours = sixHourly
      ?.slice(1)
      .filter((_, i) => i % 2 === 0)
      .map(Number);
    expect(sixHourly?.slice(1).filter((_, i) => i % 2 === 1)).toEqual(["15", "15", "15"]);
    expect(hours?.every((h) => h % 6 === 0)).toBe(true);
    expect(hlbot(["config", "validate", "--config", "test/fixtures/config/good/bot.yaml"]).code).toBe(0);
    const viaEnv = hlbot(["config", "validate"], { HLBOT_CONFIG: "test/fixtures/config/good/bot.yaml" });
    expect(viaEnv.stdout).toMatch(/^ok test\/fixtures\/config\/good\/bot\.yaml: testnet, live/m);
  });

  it("refuses an empty --config (an unset variable in a cron line) rather than running another file", () => {
    // It ran ./hlbot.yaml (here: the shipped config/default.yaml), whatever $HLBOT_CONFIG said.
    for (const args of [
      ["config", "validate", "--config", ""],
      ["once", "--dry-run", "-c", ""],
      ["plan", "--config="],
      ["stop", "--config", " "],
    ]) {
      const r = hlbot(args, { HLBOT_CONFIG: "test/fixtures/config/good/bot.yaml" });
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(
        /^hlbot: --config: the path is empty \(an unset variable on the command line\?\)/,
      );
    }
    // An empty $HLBOT_CONFIG still means unset.
    expect(hlbot(["config", "validate"], { HLBOT_CONFIG: "" }).stdout).toMatch(/^ok config\/default\.yaml/m);
  });

  it("refuses a relative HLBOT_STATE_DIR (one journal per working directory) before creating anything", () => {
    const r = hlbot(["plan", "--unsigned", "--json"], { HLBOT_STATE_DIR: "relstate" }, temp);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^hlbot: HLBOT_STATE_DIR must be an absolute path \(got "relstate"\)/);
    expect(existsSync(join(temp, "relstate"))).toBe(false);
    expect(hlbot(["config", "validate"], { HLBOT_STATE_DIR: "relstate" }).stderr).toMatch(
      /^error: HLBOT_STATE_DIR must be an absolute path/,
    );
  });

  it("refuses plan --unsigned --sign (one asks for no key, the other for a signature) before reading anything", () => {
    for (const args of [
      ["plan", "--unsigned", "--sign"],
      ["plan", "--sign", "--unsigned"],
    ]) {
      const r = hlbot(args, {}, temp);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(/option '--sign' cannot be used with option '--unsigned'/);
    }
  });

  it("says a scenario or a sweep file given as the bot file is one, in a sentence", () => {
    for (const [file, says] of [
      [
        "config/scenarios/demo.yaml",
        /this is a scenario file of the simulator .* give it to `hlbot simulate --scenario`/,
      ],
      [
        "config/sweeps/demo.yaml",
        /this looks like a sweep file, not a bot file: give it to `hlbot simulate --sweep`/,
      ],
    ] as const) {
      const r = hlbot(["config", "validate", "--config", file]);
      expect(r.code).toBe(2);
      expect(r.stderr.split("\n").filter((l) => l.startsWith("error:"))).toHaveLength(1);
      expect(r.stderr).toMatch(says);
    }
  });

  it('says a YAML merge key is not supported, rather than an unknown key "<<"', () => {
    const file = join(temp, "merge.yaml");
    writeFileSync(
      file,
      "network: testnet\nstrategies: []\nlimits:\n  <<: { maxOrderUsd: 100 }\n  maxDailyNotionalUsd: 100\n  maxStakeMovePerDay: 1\n",
    );
    const r = hlbot(["config", "validate", "--config", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "merge.yaml:4: limits.<<: YAML merge keys (<<: *anchor) are not supported: write the keys out",
    );
    expect(r.stderr).not.toContain('unknown key "<<"');
  });

  it("counts the files its errors are in, strategy files included", () => {
    const dir = join(temp, "two-bad");
    mkdirSync(dir, { recursive: true });
    for (const name of ["a", "b"])
      writeFileSync(
        join(dir, `${name}.yaml`),
        `name: ${name}\nkind: twap-accumulate\nschedule: "0 * * * *"\nparams: {}\n`,
      );
    writeFileSync(
      join(dir, "bot.yaml"),
      "network: testnet\nstrategies: [./a.yaml, ./b.yaml]\nlimits: { maxOrderUsd: 100, maxDailyNotionalUsd: 100, maxStakeMovePerDay: 1 }\n",
    );
    const r = hlbot(["config", "validate", "--config", join(dir, "bot.yaml")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/\n\d+ error\(s\) in 2 file\(s\)\n$/);
  });

  it("exits 2 with file:line, key path and a did-you-mean for a bad bot file", () => {
    const r = hlbot(["config", "validate", "--config", "test/fixtures/config/bad-bot/types.yaml"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'error: test/fixtures/config/bad-bot/types.yaml:8: limits.maxOrderUSD: unknown key "maxOrderUSD" (did you mean "maxOrderUsd"?)',
    );
    expect(r.stderr).toContain(
      "error: test/fixtures/config/bad-bot/types.yaml:1: network: expected one of: mainnet, testnet",
    );
    expect(r.stderr).toMatch(/\n\d+ error\(s\) in 1 file\(s\)\n$/);
    expect(r.stdout).toBe("");
  });

  it("checks every given file and exits 2 when any is invalid", () => {
    const r = hlbot([
      "config",
      "validate",
      "strategies/twap-accumulate.yaml",
      "test/fixtures/config/bad-strategy/kind-typo.yaml",
      "test/fixtures/config/bad-strategy/weights.yaml",
    ]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^ok strategies\/twap-accumulate\.yaml/);
    expect(r.stderr).toContain(
      'kind-typo.yaml:2: kind: unknown value "twap-rebalanse" (did you mean "twap-rebalance"?)',
    );
    expect(r.stderr).toContain("weights.yaml:5: params.targets: target weights must sum to 1");
    expect(r.stderr).toMatch(/\n4 error\(s\) in 2 file\(s\); 2 of 3 given file\(s\) invalid\n$/);
  });

  it("exits 2 for a missing file and a missing environment variable", () => {
    expect(hlbot(["config", "validate", "--config", "nowhere.yaml"]).stderr).toMatch(
      /nowhere\.yaml: file not found/,
    );
    const strategy = join(temp, "dca.yaml");
    writeFileSync(
      strategy,
      'name: dca\nkind: twap-accumulate\nschedule: "0 * * * *"\nparams:\n  coin: HYPE\n  side: buy\n  amountUsd: ${DCA_USD}\n  twap: {minutes: 60}\n',
    );
    const missing = hlbot(["config", "validate", strategy]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/dca\.yaml:7: params\.amountUsd: environment variable DCA_USD is not set/);
    expect(hlbot(["config", "validate", strategy], { DCA_USD: "500" }).code).toBe(0);
  });

  it("refuses a schedule by the second unless the bot file allows it (a stray 6th field ran a weekly buy hourly)", () => {
    const strategy = join(temp, "seconds.yaml");
    writeFileSync(
      strategy,
      'name: fast\nkind: twap-accumulate\nschedule: "*/15 * * * * *"\nparams:\n  coin: HYPE\n  side: buy\n  amountUsd: 200\n  twap: {minutes: 30}\n',
    );
    const bot = join(temp, "seconds-bot.yaml");
    const limits = "limits:\n  maxOrderUsd: 500\n  maxDailyNotionalUsd: 1000\n  maxStakeMovePerDay: 100\n";
    writeFileSync(bot, `network: testnet\nstrategies: ${strategy}\n${limits}`);
    // The strategy file on its own is not "ok" without a word: every bot file but one allowing seconds
    // refuses it (a documentation trial).
    const bot1 = join(temp, "one-bot.yaml");
    writeFileSync(
      bot1,
      `network: testnet\nstrategies: ${strategy}\nlimits:\n  maxOrderUsd: 500\n  maxDailyNotionalUsd: 1000\n  maxStakeMovePerDay: 100\nschedule:\n  allowSeconds: true\n`,
    );
    // One strategy is one strategy (it said "1 strategies").
    expect(hlbot(["config", "validate", "--config", bot1], { HLBOT_PRIVATE_KEY: SET_KEY }).stdout).toMatch(
      /: testnet, dry-run, 1 strategy \(1 enabled\)/,
    );
    const alone = hlbot(["config", "validate", strategy]);
    expect(alone.code).toBe(0);
    expect(alone.stderr).toContain(
      'schedule "*/15 * * * * *" has 6 fields (the first is seconds): a bot file runs it only with schedule.allowSeconds: true',
    );
    const refused = hlbot(["config", "validate", "--config", bot], { HLBOT_PRIVATE_KEY: SET_KEY });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `seconds.yaml:3: schedule: "*/15 * * * * *" has 6 fields: cron reads the first as seconds, so it runs more than once a minute. Write 5 fields (minute hour day-of-month month weekday), or set schedule.allowSeconds: true in the bot file`,
    );
    writeFileSync(
      bot,
      `network: testnet\nstrategies: ${strategy}\n${limits}schedule:\n  allowSeconds: true\n`,
    );
    const allowed = hlbot(["config", "validate", "--config", bot], { HLBOT_PRIVATE_KEY: SET_KEY });
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toMatch(
      /schedule "\*\/15 \* \* \* \* \*"; next \d{4}-\d\d-\d\d \d\d:\d\d:(00|15|30|45), /,
    );
  });

  it("refuses twap.maxDeviation 0, warns of one under 0.5% and of schedules that run otherwise than they read", () => {
    const strategy = join(temp, "tight.yaml");
    const write = (deviation: string, schedule = "0 * * * *") =>
      writeFileSync(
        strategy,
        `name: tight\nkind: twap-rebalance\nschedule: "${schedule}"\nparams:\n  targets: {HYPE: 0.5, USDC: 0.5}\n  twap: {minutes: 60, maxDeviation: ${deviation}}\n`,
      );
    const bot = join(temp, "tight-bot.yaml");
    writeFileSync(
      bot,
      `network: testnet\nstrategies: ${strategy}\nlimits:\n  maxOrderUsd: 500\n  maxDailyNotionalUsd: 1000\n  maxStakeMovePerDay: 100\n`,
    );
    write("0");
    const zero = hlbot(["config", "validate", "--config", bot], { HLBOT_PRIVATE_KEY: SET_KEY });
    expect(zero.code).toBe(2);
    expect(zero.stderr).toMatch(/tight\.yaml:6: params\.twap\.maxDeviation: must be greater than 0, got 0/);
    write("0.002");
    const tight = hlbot(["config", "validate", "--config", bot], { HLBOT_PRIVATE_KEY: SET_KEY });
    expect(tight.code).toBe(0);
    expect(tight.stderr).toMatch(
      /^warning: strategy tight: twap\.maxDeviation 0\.002 \(0\.2%\) is tighter than ordinary moves of the mid .* Use 0\.005 or more, or leave it out\.$/m,
    );
    write("0.005", "*/90 * * * *");
    const every90 = hlbot(["config", "validate", "--config", bot], { HLBOT_PRIVATE_KEY: SET_KEY });
    expect(every90.code).toBe(0);
    expect(every90.stderr).not.toMatch(/maxDeviation/);
    expect(every90.stderr).toMatch(
      /^warning: strategy tight: schedule "\*\/90 \* \* \* \*": minute "\*\/90": a step of 90 is not shorter than the 60 values/m,
    );
    // The strategy file checked on its own warns the same (it said only "ok").
    write("0.002", "*/90 * * * *");
    const alone = hlbot(["config", "validate", strategy], { HLBOT_PRIVATE_KEY: SET_KEY });
    expect(alone.code).toBe(0);
    expect(alone.stdout).toMatch(/^ok .*tight\.yaml: strategy tight /m);
    expect(alone.stderr).toMatch(/^warning: strategy tight: schedule "\*\/90 \* \* \* \*": minute/m);
    expect(alone.stderr).toMatch(/^warning: strategy tight: twap\.maxDeviation 0\.002 /m);
  });

  it("warns (exit 0) of a DCA amount below the venue's smallest TWAP: every run would be skipped", () => {
    const strategy = join(temp, "small-dca.yaml");
    writeFileSync(
      strategy,
      'name: small-dca\nkind: twap-accumulate\nschedule: "0 * * * *"\nparams:\n  coin: HYPE\n  side: buy\n  amountUsd: 40\n  twap: {minutes: 60}\n',
    );
    const bot = join(temp, "small-dca-bot.yaml");
    writeFileSync(
      bot,
      `network: testnet\nstrategies: ${strategy}\nlimits:\n  maxOrderUsd: 500\n  maxDailyNotionalUsd: 1000\n  maxStakeMovePerDay: 100\n`,
    );
    const r = hlbot(["config", "validate", "--config", bot], { HLBOT_PRIVATE_KEY: SET_KEY });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^warning: strategy small-dca: amountUsd 40 is below the smallest TWAP the venue accepts \(venue\.twapMinOrderValue 100\): every run will be skipped\. Raise amountUsd to at least 102\.$/m,
    );
    // At the minimum itself: rounding down to whole lots takes every order below it; a budget that
    // cannot pay for one TWAP under the buy reserve is warned about too.
    writeFileSync(
      strategy,
      'name: small-dca\nkind: twap-accumulate\nschedule: "0 * * * *"\nparams:\n  coin: HYPE\n  side: buy\n  amountUsd: 100\n  budgetUsd: 100\n  twap: {minutes: 60}\n',
    );
    const atMinimum = hlbot(["config", "validate", "--config", bot], { HLBOT_PRIVATE_KEY: SET_KEY });
    expect(atMinimum.code).toBe(0);
    expect(atMinimum.stderr).toMatch(
      /^warning: strategy small-dca: amountUsd 100 is at the smallest TWAP the venue accepts \(venue\.twapMinOrderValue 100\), and orders are rounded down to whole lots: a run is skipped whenever that takes it below \(at most prices\)\. Raise amountUsd to at least 102\.$/m,
    );
    expect(atMinimum.stderr).toMatch(
      /^warning: strategy small-dca: budgetUsd 100 is too small for one TWAP: .* Raise budgetUsd to at least 106\.$/m,
    );
    writeFileSync(
      strategy,
      'name: small-dca\nkind: twap-accumulate\nschedule: "0 * * * *"\nparams:\n  coin: HYPE\n  side: buy\n  amountUsd: 102\n  budgetUsd: 106\n  twap: {minutes: 60}\n',
    );
    expect(hlbot(["config", "validate", "--config", bot], { HLBOT_PRIVATE_KEY: SET_KEY }).stderr).not.toMatch(
      /warning/,
    );
  });

  it("an unquoted schedule starting with * says to quote it", () => {
    // A user's trial: `schedule: */5 * * * *` gave only "invalid YAML: Unexpected alias at node end".
    const strategy = join(temp, "star.yaml");
    writeFileSync(
      strategy,
      "name: star\nkind: twap-accumulate\nschedule: */5 * * * *\nparams:\n  coin: HYPE\n  side: buy\n  amountUsd: 200\n  twap: {minutes: 60}\n",
    );
    const r = hlbot(["config", "validate", strategy]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'star.yaml:3: invalid YAML: Unexpected alias at node end; a value starting with * must be quoted (YAML reads * as an alias): schedule: "*/5 * * * *"',
    );
    // A config trial: an unquoted pair name got "cannot start with reserved character @" alone.
    const at = join(temp, "at.yaml");
    writeFileSync(
      at,
      'name: at\nkind: twap-accumulate\nschedule: "0 * * * *"\nparams:\n  coin: @107\n  side: buy\n  amountUsd: 200\n',
    );
    const a = hlbot(["config", "validate", at]);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('; a value starting with @ must be quoted (YAML reserves @): coin: "@107"');
  });

  it("warns (exit 0) of a DCA amount above maxOrderUsd or maxDailyNotionalUsd: every run is cut or blocked", () => {
    // A user's trial: amountUsd 150 under maxDailyNotionalUsd 100 validated without a word.
    const strategy = join(temp, "big-dca.yaml");
    writeFileSync(
      strategy,
      'name: big-dca\nkind: twap-accumulate\nschedule: "0 * * * *"\nparams:\n  coin: HYPE\n  side: buy\n  amountUsd: 150\n  twap: {minutes: 60}\n',
    );
    const bot = join(temp, "big-dca-bot.yaml");
    writeFileSync(
      bot,
      `network: testnet\nstrategies: ${strategy}\nlimits:\n  maxOrderUsd: 120\n  maxDailyNotionalUsd: 100\n  maxStakeMovePerDay: 100\n`,
    );
    const r = hlbot(["config", "validate", "--config", bot], { HLBOT_PRIVATE_KEY: SET_KEY });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^warning: strategy big-dca: amountUsd 150 is above limits\.maxOrderUsd 120: every run is reduced to 120 USD .* raise maxOrderUsd to at least 150\.$/m,
    );
    expect(r.stderr).toMatch(
      /^warning: strategy big-dca: amountUsd 150 is above limits\.maxDailyNotionalUsd 100: every run is reduced to what is left of the day's 100 USD, or blocked .* raise maxDailyNotionalUsd to at least 150\.$/m,
    );
    writeFileSync(
      bot,
      `network: testnet\nstrategies: ${strategy}\nlimits:\n  maxOrderUsd: 150\n  maxDailyNotionalUsd: 150\n  maxStakeMovePerDay: 100\n`,
    );
    expect(hlbot(["config", "validate", "--config", bot], { HLBOT_PRIVATE_KEY: SET_KEY }).stderr).not.toMatch(
      /warning/,
    );
  });

  it("warns (exit 0) of a staking grace shorter than the nonce window and of a cap below the venue's minimum", () => {
    const bot = join(temp, "unsafe.yaml");
    writeFileSync(
      bot,
      `network: testnet\nstrategies: ${REPO_ROOT}/strategies/twap-rebalance.yaml\nlimits:\n  maxOrderUsd: 50\n  maxDailyNotionalUsd: 1000\n  maxStakeMovePerDay: 100\nvenue:\n  userSignedGraceMs: 300000\n`,
    );
    const r = hlbot(["config", "validate", "--config", bot], { HLBOT_PRIVATE_KEY: SET_KEY });
    expect(r.code).toBe(0);
    const warnings = r.stderr.split("\n").filter((l) => l.startsWith("warning: "));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/venue\.userSignedGraceMs is 300000 \(5 min\).*may happen twice/);
    expect(warnings[1]).toMatch(
      /limits\.maxOrderUsd 50 is below .*twapMinOrderValue 100.*every TWAP will be blocked/,
    );
    writeFileSync(
      bot,
      `network: testnet\nstrategies: ${REPO_ROOT}/strategies/twap-rebalance.yaml\nlimits:\n  maxOrderUsd: 100\n  maxDailyNotionalUsd: 1000\n  maxStakeMovePerDay: 100\n`,
    );
    // At the minimum: an order the limit reduces, rounded down to whole lots, lands under it.
    expect(hlbot(["config", "validate", "--config", bot], { HLBOT_PRIVATE_KEY: SET_KEY }).stderr).toMatch(
      /limits\.maxOrderUsd 100 is at .*rounded down to whole lots.*Raise maxOrderUsd to at least 102\./,
    );
    writeFileSync(
      bot,
      `network: testnet\nstrategies: ${REPO_ROOT}/strategies/twap-rebalance.yaml\nlimits:\n  maxOrderUsd: 102\n  maxDailyNotionalUsd: 1000\n  maxStakeMovePerDay: 100\n`,
    );
    expect(hlbot(["config", "validate", "--config", bot], { HLBOT_PRIVATE_KEY: SET_KEY }).stderr).toBe("");
  });

  it("exits 2 for an inline key and never prints it", () => {
    const key = "c4".repeat(32);
    const bad = join(temp, "bot.yaml");
    writeFileSync(bad, `network: testnet\nwallet:\n  privateKeyEnv: "${key}"\n`);
    const r = hlbot(["config", "validate", "--config", bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /bot\.yaml:3: wallet\.privateKeyEnv: this value looks like an inline private key/,
    );
    expect(`${r.stdout}${r.stderr}`.toLowerCase()).not.toContain(key);
  });
});

describe("hlbot config schema", () => {
  it("prints the JSON Schema of the bot file, or of strategy files", () => {
    const bot = hlbot(["config", "schema"]);
    expect(bot.code).toBe(0);
    const s = JSON.parse(bot.stdout) as { title: string; properties: Record<string, unknown> };
    expect(s.title).toBe("hlbot bot configuration");
    expect(Object.keys(s.properties)).toContain("limits");
    const strat = JSON.parse(hlbot(["config", "schema", "strategy"]).stdout) as { oneOf: unknown[] };
    expect(strat.oneOf).toHaveLength(4);
    expect(hlbot(["config", "schema", "bogus"]).code).toBe(2);
  });
});
