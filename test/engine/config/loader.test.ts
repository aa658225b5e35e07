import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type ConfigIssue, ConfigIssuesError, issuesOf } from "../../../src/engine/config/issues.js";
import {
  DEFAULT_CONFIG_PATH,
  fileKindOf,
  loadConfig,
  loadStrategyFile,
  loadStrategyFiles,
  resolveConfigPath,
  shadowedLocalConfig,
} from "../../../src/engine/config/loader.js";
import { runStrategy } from "../../../src/engine/strategies/registry.js";
import { ConfigError, exitCodeOf } from "../../../src/lib/errors.js";
import { defaultStateDir } from "../../../src/lib/stateDb.js";
import { buildSnapshot, T0 } from "../../helpers/snapshots.js";

const ROOT = resolve(import.meta.dirname, "../../..");
const FIXTURES = join(ROOT, "test/fixtures/config");
const fixture = (p: string) => join(FIXTURES, p);

const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});
function tempFiles(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "hlbot-config-"));
  temps.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** The issues a load fails with (and that it fails with a ConfigError, exit code 2). */
async function failure(promise: Promise<unknown>): Promise<readonly ConfigIssue[]> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  expect(exitCodeOf(err)).toBe(2);
  return issuesOf(err as ConfigError);
}

const LIMITS = "limits:\n  maxOrderUsd: 100\n  maxDailyNotionalUsd: 1000\n  maxStakeMovePerDay: 10\n";

describe("shipped configuration", () => {
  it("config/default.yaml and every strategies/*.yaml load, testnet and dry-run", async () => {
    const c = await loadConfig(join(ROOT, "config/default.yaml"), {});
    expect(c.network).toBe("testnet");
    expect(c.mode).toBe("dry-run");
    expect(c.strategySource).toEqual({ folder: join(ROOT, "strategies") });
    expect(c.strategies.map((s) => s.kind).sort()).toEqual([
      "link-staking",
      "twap-accumulate",
      "twap-rebalance",
      "validator-staking",
    ]);
    // No `state:` in the shipped file: the state lives where every command finds it (defaultStateDir).
    expect(c.state).toBe(defaultStateDir({}));
    expect(c.limits.killSwitchFile).toBe(join(defaultStateDir({}), "STOP"));
    expect(c.wallet).toEqual({ privateKeyEnv: "HLBOT_PRIVATE_KEY" });
    expect(c.venue.rules.twapMinOrderValue.toFixed()).toBe("100");
    expect(c.venue.rules.twapMinSliceValue.toFixed()).toBe("0");
  });

  it("the shipped twap-rebalance example plans the reference trade", async () => {
    const s = await loadStrategyFile(join(ROOT, "strategies/twap-rebalance.yaml"), {});
    const snapshot = buildSnapshot({ balances: { HYPE: 1000, USDC: 5000 }, hypeMid: 40 });
    const decisions = runStrategy(s, snapshot, T0, {});
    expect(decisions.map((d) => [d.kind, d.kind === "twapOrder" ? d.size.toFixed() : ""])).toEqual([
      ["twapOrder", "437.5"],
    ]);
  });

  it("the default config path is config/default.yaml (a checkout's, else the package's) unless --config or $HLBOT_CONFIG says otherwise", () => {
    expect(DEFAULT_CONFIG_PATH).toBe("config/default.yaml");
    expect(resolveConfigPath(undefined, {}, ROOT)).toBe(join(ROOT, "config/default.yaml"));
    expect(resolveConfigPath(undefined, { HOME: "/nonexistent" }, "/srv")).toBe(
      join(ROOT, "config/default.yaml"),
    );
    expect(resolveConfigPath(undefined, { HLBOT_CONFIG: "bot.yaml" }, "/srv")).toBe("/srv/bot.yaml");
    expect(resolveConfigPath("x.yaml", { HLBOT_CONFIG: "bot.yaml" }, "/srv")).toBe("/srv/x.yaml");
  });
});

describe("loadConfig", () => {
  it("resolves every relative path against the config file's folder and fills the values", async () => {
    const c = await loadConfig(fixture("good/bot.yaml"), {});
    const dir = fixture("good");
    expect(c.file).toBe(join(dir, "bot.yaml"));
    expect(c.dir).toBe(dir);
    expect(c.baseUrl).toBe("http://127.0.0.1:3001");
    expect(c.account).toBe("0xabcdefabcdef0123456789012345678901234567");
    expect(c.wallet).toEqual({ keystore: join(dir, "keys/ks.json"), passwordFile: join(dir, "keys/pw.txt") });
    expect(c.mode).toBe("live");
    expect(c.strategySource).toEqual({ files: [join(dir, "rebalance.yaml"), join(dir, "staking.yaml")] });
    expect(c.state).toBe(join(dir, "var/state"));
    expect(c.log).toEqual({ level: "debug", format: "json", file: join(dir, "var/hlbot.log") });
    expect(c.limits.maxOrderUsd.toFixed()).toBe("1000.5");
    expect(c.limits.validatorAllowlist).toEqual(["0x00000000000000000000000000000000000000aa"]);
    expect(c.venue).toMatchObject({ timeoutMs: 10_000, expiresAfterMs: null, readAttempts: 4 });
    expect(c.venue.rules).toMatchObject({ twapMinMinutes: 5, twapMaxMinutes: 1440, twapSliceSeconds: 30 });
    expect(c.venue.rules.twapMinSliceValue.toFixed()).toBe("12.5");
    const [rebalance, staking] = c.strategies;
    expect(rebalance).toMatchObject({
      name: "rebalance",
      kind: "twap-rebalance",
      enabled: true,
      file: join(dir, "rebalance.yaml"),
    });
    expect(staking).toMatchObject({ name: "staking", kind: "validator-staking", enabled: false });
    if (rebalance?.kind !== "twap-rebalance") throw new Error("unreachable");
    // Defaults of the kind's schema are filled in.
    expect(rebalance.params.quote).toBe("USDC");
    expect(rebalance.params.band.toFixed()).toBe("0.05");
    expect(rebalance.params.twap).toEqual({ minutes: 30, randomize: true });
  });

  it("says when $HLBOT_CONFIG names another file than ./hlbot.yaml in the working folder (a go-live trial)", () => {
    const dir = tempFiles({ "hlbot.yaml": "network: testnet\n", "mainnet.yaml": "network: mainnet\n" });
    expect(shadowedLocalConfig(undefined, { HLBOT_CONFIG: join(dir, "mainnet.yaml") }, dir)).toBe(
      join(dir, "hlbot.yaml"),
    );
    expect(shadowedLocalConfig(undefined, { HLBOT_CONFIG: "hlbot.yaml" }, dir)).toBeUndefined();
    expect(
      shadowedLocalConfig("mainnet.yaml", { HLBOT_CONFIG: join(dir, "mainnet.yaml") }, dir),
    ).toBeUndefined();
    expect(shadowedLocalConfig(undefined, {}, dir)).toBeUndefined();
  });

  it("refuses an empty validatorAllowlist: it read as no allowlist, and delegations went to any validator (a config trial)", async () => {
    const dir = tempFiles({
      "bot.yaml": `network: testnet\nstrategies: ./s\n${LIMITS}  validatorAllowlist: []\n`,
    });
    mkdirSync(join(dir, "s"));
    const issues = await failure(loadConfig(join(dir, "bot.yaml"), {}));
    expect(issues).toEqual([
      expect.objectContaining({
        line: 7,
        keyPath: "limits.validatorAllowlist",
        message: expect.stringMatching(
          /^an empty allowlist would allow no validator, or \(as it was read before\) any/,
        ),
      }),
    ]);
  });

  it("reads a strategies folder: every *.yaml and *.yml in it, sorted", async () => {
    const dir = tempFiles({ "bot.yaml": `network: mainnet\nstrategies: ./s\n${LIMITS}` });
    const s = join(dir, "s");
    mkdirSync(s);
    writeFileSync(
      join(s, "b.yml"),
      'name: b\nkind: link-staking\nschedule: "0 * * * *"\nparams: {counterparty: 0x00000000000000000000000000000000000000bb}\n',
    );
    writeFileSync(
      join(s, "a.yaml"),
      'name: a\nkind: validator-staking\nschedule: "0 * * * *"\nparams: {validators: 1}\n',
    );
    writeFileSync(join(s, "notes.txt"), "not a strategy");
    const c = await loadConfig(join(dir, "bot.yaml"), {});
    expect(c.strategies.map((x) => x.name)).toEqual(["a", "b"]);
    // An unquoted address stays an address (YAML would read 0x… as a number).
    expect(c.strategies[1]).toMatchObject({
      params: { counterparty: "0x00000000000000000000000000000000000000bb" },
    });
    expect(c.state).toBe(defaultStateDir({}));
    expect(c.limits.killSwitchFile).toBe(join(defaultStateDir({}), "STOP"));
  });

  it("reports a missing file, a missing strategies folder and a missing listed file", async () => {
    const missing = await failure(loadConfig(fixture("nope.yaml"), {}));
    expect(missing[0]?.message).toBe("file not found");
    const folder = await failure(loadConfig(fixture("bad-bot/missing-strategies.yaml"), {}));
    expect(folder[0]).toMatchObject({ line: 2, keyPath: "strategies" });
    expect(folder[0]?.message).toMatch(/strategy folder or file not found: .*bad-bot\/nowhere/);
    const dir = tempFiles({
      "bot.yaml": `network: testnet\nstrategies:\n  - a.yaml\n  - b.yaml\n${LIMITS}`,
      "a.yaml": "",
    });
    const listed = await failure(loadConfig(join(dir, "bot.yaml"), {}));
    expect(listed[0]).toMatchObject({ line: 4, keyPath: "strategies[1]" });
  });
});

describe("configuration errors name the file, the line, the key path and what was expected", () => {
  it("a strategy file given as the bot file is named as such, in one issue", async () => {
    const issues = await failure(loadConfig(join(ROOT, "strategies/twap-rebalance.yaml"), {}));
    expect(issues).toHaveLength(1);
    expect(issues[0]?.message).toMatch(/this is a strategy file \(it has `kind:`\), not a bot file/);
  });

  it("an unknown key, with did-you-mean", async () => {
    const issues = await failure(loadConfig(fixture("bad-bot/typo.yaml"), {}));
    expect(issues).toContainEqual({
      file: "test/fixtures/config/bad-bot/typo.yaml",
      line: 2,
      keyPath: "netwrk",
      message: 'unknown key "netwrk" (did you mean "network"?)',
    });
    // One mistake, one line: the key it was meant to be is not reported as missing as well.
    expect(issues).not.toContainEqual(expect.objectContaining({ keyPath: "network" }));
  });

  it("wrong types and values, all reported at once, top to bottom", async () => {
    const issues = await failure(loadConfig(fixture("bad-bot/types.yaml"), {}));
    expect(issues.map((i) => [i.line, i.keyPath])).toEqual([
      [1, "network"],
      [5, "limits.maxOrderUsd"],
      [6, "limits.maxDailyNotionalUsd"],
      [8, "limits.maxOrderUSD"],
      [10, "log.level"],
    ]);
    expect(issues[0]?.message).toBe('expected one of: mainnet, testnet, got the string "devnet"');
    expect(issues[1]?.message).toMatch(/expected a decimal number/);
    expect(issues[2]?.message).toBe("must be greater than 0, got -5");
    expect(issues[3]?.message).toBe('unknown key "maxOrderUSD" (did you mean "maxOrderUsd"?)');
    const err = await loadConfig(fixture("bad-bot/types.yaml"), {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigIssuesError);
    expect((err as Error).message).toMatch(/^test\/fixtures\/config\/bad-bot\/types\.yaml:1: network: /);
    expect((err as Error).message.split("\n")).toHaveLength(5);
  });

  it("schedule.maxClockSkew under 10 s: the venue's time is known to about a second, so it would hold a clock in sync", async () => {
    const dir = tempFiles({
      "bot.yaml": `network: testnet\nstrategies: [s.yaml]\n${LIMITS}schedule:\n  maxClockSkew: "0s"\n`,
      "s.yaml":
        'name: dca\nkind: twap-accumulate\nschedule: "0 * * * *"\nparams: {coin: HYPE, side: buy, amountUsd: 200, twap: {minutes: 30}}\n',
    });
    const issues = await failure(loadConfig(join(dir, "bot.yaml"), {}));
    expect(issues).toEqual([
      expect.objectContaining({
        line: 8,
        keyPath: "schedule.maxClockSkew",
        message: expect.stringMatching(/must be at least "10s"/),
      }),
    ]);
  });

  it("missing limits", async () => {
    const issues = await failure(loadConfig(fixture("bad-bot/no-limits.yaml"), {}));
    expect(issues).toEqual([
      expect.objectContaining({ keyPath: "limits", message: "is required (expected a mapping)" }),
    ]);
  });

  it("wallet: env var names and keystore-only keys", async () => {
    const issues = await failure(loadConfig(fixture("bad-bot/wallet.yaml"), {}));
    expect(issues.map((i) => [i.line, i.keyPath])).toEqual([
      [4, "wallet.privateKeyEnv"],
      [5, "wallet.passwordEnv"],
    ]);
    expect(issues[1]?.message).toBe("passwordEnv only applies with keystore");
  });

  it("YAML syntax errors and duplicate keys", async () => {
    const syntax = await failure(loadConfig(fixture("bad-bot/syntax.yaml"), {}));
    expect(syntax[0]?.line).toBe(4);
    expect(syntax[0]?.message).toMatch(/^invalid YAML: /);
    const dup = await failure(loadConfig(fixture("bad-bot/duplicate-key.yaml"), {}));
    expect(dup[0]).toMatchObject({ line: 3, message: "invalid YAML: Map keys must be unique" });
  });

  it("an address in mixed case whose case is not its EIP-55 checksum (one digit mistyped from an explorer) is refused at its line", async () => {
    const dir = tempFiles({
      "link.yaml":
        'name: link\nkind: link-staking\nschedule: "0 12 * * *"\nparams:\n  counterparty: "0x70997970C51812dc3A010C7d01b50e0d17dc79C9"\n',
      "ok.yaml":
        'name: link\nkind: link-staking\nschedule: "0 12 * * *"\nparams:\n  counterparty: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"\n',
    });
    const issues = await failure(loadStrategyFile(join(dir, "link.yaml"), {}));
    expect(issues.map((i) => [i.line, i.keyPath])).toEqual([[5, "params.counterparty"]]);
    expect(issues[0]?.message).toMatch(/is written in mixed case but its case is not its EIP-55 checksum/);
    // The same address with its checksum, or in one case, loads (lower-cased).
    const ok = await loadStrategyFile(join(dir, "ok.yaml"), {});
    expect((ok.params as { counterparty: string }).counterparty).toBe(
      "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
    );
  });

  it("a name where an address goes is one error, without a word on its checksum; CR-only line ends are named", async () => {
    const dir = tempFiles({
      "link.yaml":
        'name: link\nkind: link-staking\nschedule: "0 12 * * *"\nparams:\n  counterparty: ValiDAO\n',
      "mac.yaml": 'name: dca\rkind: twap-accumulate\rschedule: "0 9 * * *"\r',
    });
    const issues = await failure(loadStrategyFile(join(dir, "link.yaml"), {}));
    expect(issues.map((i) => i.message)).toEqual(["expected a 0x-prefixed 40-hex-digit address"]);
    const mac = await failure(loadStrategyFile(join(dir, "mac.yaml"), {}));
    expect(mac.map((i) => [i.line, i.message])).toEqual([
      [
        1,
        "its lines end in CR alone (an old Mac format), which YAML does not read as line ends: save it with LF (or CRLF) line ends",
      ],
    ]);
  });

  it("an error about a value from the environment names the variable, and a carriage return in it (a config trial)", async () => {
    const ref = (name: string) => ["$", "{", name, "}"].join("");
    const dir = tempFiles({
      "dca.yaml": `name: dca\nkind: twap-accumulate\nschedule: "0 9 * * *"\nparams:\n  coin: PURR\n  quote: USDC\n  side: buy\n  twap: { minutes: 30 }\n  amountUsd: ${ref("DCA_USD")}\n`,
      "link.yaml": `name: link\nkind: link-staking\nschedule: "0 12 * * *"\nparams:\n  counterparty: ${ref("PEER")}\n`,
    });
    const usd = await failure(loadStrategyFile(join(dir, "dca.yaml"), { DCA_USD: "5,000" }));
    expect(usd.map((i) => [i.line, i.message])).toEqual([
      [
        9,
        `expected a decimal number, written as 12.5 or "12.5", got "5,000" (the value of ${ref("DCA_USD")})`,
      ],
    ]);
    const peer = await failure(
      loadStrategyFile(join(dir, "link.yaml"), { PEER: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8\r" }),
    );
    expect(peer[0]?.message).toBe(
      `expected a 0x-prefixed 40-hex-digit address (the value of ${ref("PEER")}, which holds a carriage return (an env file with CRLF line ends?))`,
    );
  });

  it("an alias whose anchor is not set above it is named at its line (it was called an alias bomb at line 1)", async () => {
    const dir = tempFiles({
      "dca.yaml":
        'name: dca\nkind: twap-accumulate\nschedule: "0 9 * * *"\nparams:\n  coin: PURR\n  quote: USDC\n  side: buy\n  amountUsd: *amt\n',
    });
    const issues = await failure(loadStrategyFile(join(dir, "dca.yaml"), {}));
    expect(issues.map((i) => [i.line, i.message])).toEqual([
      [8, "*amt names no anchor: &amt must be set above it in this file (anchors do not reach across files)"],
    ]);
  });

  it("strategy files: kind typo, weights, TWAP block, cron, params", async () => {
    const kind = await failure(loadStrategyFile(fixture("bad-strategy/kind-typo.yaml"), {}));
    expect(kind).toEqual([
      expect.objectContaining({
        line: 2,
        keyPath: "kind",
        message: 'unknown value "twap-rebalanse" (did you mean "twap-rebalance"?)',
      }),
    ]);
    const weights = await failure(loadStrategyFile(fixture("bad-strategy/weights.yaml"), {}));
    expect(weights.map((i) => [i.line, i.keyPath, i.message])).toEqual([
      [5, "params.targets", "target weights must sum to 1 (within 1e-9), they sum to 0.9"],
      [9, "params.twap.minutes", "must be at least 5"],
      [10, "params.twap.randomise", 'unknown key "randomise" (did you mean "randomize"?)'],
    ]);
    const cron = await failure(loadStrategyFile(fixture("bad-strategy/cron.yaml"), {}));
    expect(cron.map((i) => [i.line, i.keyPath])).toEqual([
      [3, "schedule"],
      [5, "params.validators"],
      [6, "params.rankBy"],
      [8, "params.allow[0]"],
    ]);
    expect(cron[0]?.message).toMatch(/invalid cron expression "61 \* \* \* \*": minute/);
    expect(cron[3]?.message).toBe("expected a 0x-prefixed 40-hex-digit address");
    const dca = await failure(loadStrategyFile(fixture("bad-strategy/accumulate.yaml"), {}));
    expect(dca.map((i) => [i.line, i.keyPath, i.message])).toEqual([
      [6, "params.side", 'expected one of: buy, sell, got the string "hold"'],
      [9, "params.budgetUSD", 'unknown key "budgetUSD" (did you mean "budgetUsd"?)'],
    ]);
  });

  it("strategy names must be unique across files", async () => {
    const issues = await failure(
      loadStrategyFiles([fixture("good/rebalance.yaml"), fixture("bad-strategy/duplicate-name.yaml")], {}),
    );
    expect(issues).toEqual([
      {
        file: "test/fixtures/config/bad-strategy/duplicate-name.yaml",
        line: 1,
        keyPath: "name",
        message: 'strategy name "rebalance" is already used by test/fixtures/config/good/rebalance.yaml',
      },
    ]);
  });

  it("collects the problems of several strategy files", async () => {
    const issues = await failure(
      loadStrategyFiles(
        [fixture("bad-strategy/kind-typo.yaml"), fixture("bad-strategy/accumulate.yaml")],
        {},
      ),
    );
    expect(new Set(issues.map((i) => i.file))).toEqual(
      new Set([
        "test/fixtures/config/bad-strategy/kind-typo.yaml",
        "test/fixtures/config/bad-strategy/accumulate.yaml",
      ]),
    );
  });

  it("leaveOutBroken: a strategy file that does not load, a name used twice and a missing file are left out with their issues; the rest load", async () => {
    const good = readFileSync(fixture("good/rebalance.yaml"), "utf8");
    const dir = tempFiles({
      "bot.yaml": `network: testnet\nstrategies: [ok.yaml, typo.yaml, a.yaml, b.yaml, gone.yaml]\n${LIMITS}`,
      "ok.yaml": good.replace(/^name: .*$/m, "name: ok"),
      "typo.yaml": good
        .replace(/^name: .*$/m, "name: typo")
        .replace("kind: twap-rebalance", "kind: twap-rebalanse"),
      "a.yaml": good.replace(/^name: .*$/m, "name: twin"),
      "b.yaml": good.replace(/^name: .*$/m, "name: twin"),
    });
    const strict = await failure(loadConfig(join(dir, "bot.yaml"), {}));
    expect(strict.map((i) => i.message)).toEqual([
      expect.stringMatching(/^strategy file not found: .*gone\.yaml$/),
    ]);
    const c = await loadConfig(join(dir, "bot.yaml"), {}, { leaveOutBroken: true });
    // Which of two files of one name is meant cannot be told: neither acts.
    expect(c.strategies.map((s) => s.name)).toEqual(["ok"]);
    expect(c.leftOut?.map((i) => [i.file.replace(/.*\//, ""), i.keyPath])).toEqual([
      ["bot.yaml", "strategies[4]"],
      ["typo.yaml", "kind"],
      ["b.yaml", "name"],
    ]);
    // A folder that is not there: nothing loads, said once.
    const none = tempFiles({ "bot.yaml": `network: testnet\nstrategies: ./nowhere\n${LIMITS}` });
    const empty = await loadConfig(join(none, "bot.yaml"), {}, { leaveOutBroken: true });
    expect(empty.strategies).toEqual([]);
    expect(empty.leftOut?.map((i) => i.message)).toEqual([
      expect.stringMatching(/^strategy folder or file not found/),
    ]);
    // The bot file itself is never left out.
    const bad = tempFiles({ "bot.yaml": `network: testnet\nstrategies: [ok.yaml]\nlimits: 3\n` });
    await failure(loadConfig(join(bad, "bot.yaml"), {}, { leaveOutBroken: true }));
  });

  it("tells strategy files from bot files", async () => {
    expect(await fileKindOf(fixture("good/rebalance.yaml"))).toBe("strategy");
    expect(await fileKindOf(fixture("good/bot.yaml"))).toBe("bot");
    expect(await fileKindOf(fixture("missing.yaml"))).toBe("bot");
  });
});
