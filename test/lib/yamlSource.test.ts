// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these tests are about ${ENV} references in YAML text.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { issuesOf } from "../../src/engine/config/issues.js";
import { loadConfig, loadStrategyFile } from "../../src/engine/config/loader.js";
import { ConfigError } from "../../src/lib/errors.js";
import { interpolateEnv, keepExactNumbers, parseYamlSource } from "../../src/lib/yamlSource.js";

const dir = mkdtempSync(join(tmpdir(), "hlbot-source-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function file(text: string): string {
  const p = join(dir, `f${n++}.yaml`);
  writeFileSync(p, text);
  return p;
}

// Built at run time so no key-shaped literal sits in the repository.
const FAKE_KEY = "ab".repeat(32);
const LIMITS = "limits:\n  maxOrderUsd: 100\n  maxDailyNotionalUsd: 1000\n  maxStakeMovePerDay: 10\n";
const STRATEGY = (params: string) =>
  `name: s\nkind: twap-accumulate\nschedule: "0 * * * *"\nparams:\n${params}`;

async function configError(promise: Promise<unknown>): Promise<ConfigError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  return err as ConfigError;
}

describe("inline private keys", () => {
  it.each([
    ["a value", `network: testnet\nwallet:\n  privateKeyEnv: "0x${FAKE_KEY}"\n`, 3, "wallet.privateKeyEnv"],
    ["without 0x, under any key", `network: testnet\nnotes:\n  anything: ${FAKE_KEY}\n`, 3, "notes.anything"],
    [
      "in a list",
      `network: testnet\nstrategies:\n  - a.yaml\n  - '0X${FAKE_KEY.toUpperCase()}'\n`,
      4,
      "strategies[1]",
    ],
    ["as a key", `network: testnet\n${FAKE_KEY}: 1\n`, 2, FAKE_KEY],
    ["in a comment", `network: testnet\n# old key: 0x${FAKE_KEY}\n`, 2, undefined],
    ["as a bare number", `network: testnet\nn: ${"12".repeat(32)}\n`, 2, "n"],
  ])("are refused %s, without echoing the value", async (_label, text, line, keyPath) => {
    const err = await configError(loadConfig(file(text), {}));
    const lower = err.message.toLowerCase();
    expect(lower).not.toContain(FAKE_KEY);
    expect(lower).not.toContain("12".repeat(32));
    expect(err.message).toMatch(/looks like an inline private key/);
    expect(err.line).toBe(line);
    // A key *name* that is key-shaped is still not echoed: the path is withheld for it.
    if (keyPath === FAKE_KEY) expect(err.keyPath).toBeUndefined();
    else expect(err.keyPath).toBe(keyPath);
  });

  it("refuses an environment variable whose value is a key, naming the variable only", async () => {
    const err = await configError(
      loadConfig(file(`network: testnet\naccount: \${SOME_VAR}\n${LIMITS}`), { SOME_VAR: `0x${FAKE_KEY}` }),
    );
    expect(err.message).toMatch(/the value of \$\{SOME_VAR\} looks like a private key/);
    expect(err.message.toLowerCase()).not.toContain(FAKE_KEY);
    expect(err.keyPath).toBe("account");
  });

  it("leaves 40-hex addresses and shorter hex alone", async () => {
    const c = await loadStrategyFile(
      file(
        'name: s\nkind: link-staking\nschedule: "0 * * * *"\nparams:\n  counterparty: "0x' +
          "cd".repeat(20) +
          '"\n',
      ),
      {},
    );
    expect(c.params).toMatchObject({ counterparty: `0x${"cd".repeat(20)}` });
  });
});

describe("${ENV} interpolation", () => {
  const env = { AMOUNT: "250", MINUTES: "45", SIDE: "sell", RANDOM: "false", COIN: "HYPE" };

  it("substitutes variables, typing a plain single reference that spells a number or a boolean", async () => {
    const s = await loadStrategyFile(
      file(
        STRATEGY(
          "  coin: ${COIN}\n  side: ${SIDE}\n  amountUsd: ${AMOUNT}\n  twap:\n    minutes: ${MINUTES}\n    randomize: ${RANDOM}\n",
        ),
      ),
      env,
    );
    expect(s.params).toMatchObject({ coin: "HYPE", side: "sell", twap: { minutes: 45, randomize: false } });
    if (s.kind !== "twap-accumulate") throw new Error("unreachable");
    expect(s.params.amountUsd.toFixed()).toBe("250");
  });

  it("keeps quoted references as strings, supports defaults and $$ and text around references", () => {
    const src = parseYamlSource(
      "t.yaml",
      'a: "${MINUTES}"\nb: ${UNSET:-7}\nc: ${EMPTY:-fallback}\nd: cost $$5 for ${COIN}s\ne: ${COIN}-${SIDE}\n',
    );
    interpolateEnv(src, { ...env, EMPTY: "" });
    expect(src.doc.toJS()).toEqual({ a: "45", b: 7, c: "fallback", d: "cost $5 for HYPEs", e: "HYPE-sell" });
  });

  it("a plain reference that expands to nothing leaves its key out (list items too); a quoted one stays an empty string", () => {
    const src = parseYamlSource(
      "t.yaml",
      'account: ${ACCOUNT:-}\nbaseUrl: ${EMPTY:-}\nkept: "${EMPTY:-}"\nlist:\n  - a\n  - ${UNSET:-}\n  - b\n  - ${EMPTY:-}\nn: ${MINUTES}\n',
    );
    interpolateEnv(src, { ...env, EMPTY: "" });
    expect(src.doc.toJS()).toEqual({ kept: "", list: ["a", "b"], n: 45 });
    // Set, the same lines take the value.
    const set = parseYamlSource("t.yaml", "account: ${ACCOUNT:-}\n");
    interpolateEnv(set, { ACCOUNT: "0x0000000000000000000000000000000000000001" });
    expect(set.doc.toJS()).toEqual({ account: "0x0000000000000000000000000000000000000001" });
  });

  it("an unset variable is a ConfigError naming it, with the line and key path", async () => {
    const err = await configError(
      loadStrategyFile(file(STRATEGY("  coin: HYPE\n  side: buy\n  amountUsd: ${DCA_AMOUNT}\n")), {}),
    );
    expect(err.message).toMatch(/environment variable DCA_AMOUNT is not set/);
    expect(err).toMatchObject({ line: 7, keyPath: "params.amountUsd" });
    expect(issuesOf(err)[0]?.message).toBe(
      "environment variable DCA_AMOUNT is not set (referenced as ${DCA_AMOUNT})",
    );
  });

  it("a variable set but empty, referenced without `:-`, is refused: it would leave a budget or a limit out (a config trial)", async () => {
    const err = await configError(
      loadStrategyFile(
        file(STRATEGY("  coin: HYPE\n  side: buy\n  amountUsd: 300\n  budgetUsd: ${BUDGET}\n")),
        {
          BUDGET: "",
        },
      ),
    );
    expect(err).toMatchObject({ line: 8, keyPath: "params.budgetUsd" });
    expect(issuesOf(err)[0]?.message).toBe(
      "environment variable BUDGET is empty (referenced as ${BUDGET}); set it, or write ${BUDGET:-} where an empty value should leave the key out",
    );
    // In a list (an allowlist item) and inside a longer value too; blanks count as empty.
    for (const text of ["list:\n  - ${V}\n", "url: http://${V}/x\n"]) {
      const src = parseYamlSource("t.yaml", text);
      expect(() => interpolateEnv(src, { V: " " })).toThrow(/environment variable V is empty/);
    }
    // Inside a longer value, `:-` does not leave the key out: the advice says what it does there.
    expect(() =>
      interpolateEnv(parseYamlSource("t.yaml", "state: ./state${SUFFIX}\n"), { SUFFIX: "" }),
    ).toThrow(/write \$\{SUFFIX:-\} where it may be empty \(it then adds nothing to the value\)$/);
  });

  it("refuses malformed references", () => {
    for (const text of ["a: ${1BAD}\n", "a: ${}\n", "a: x${OPEN\n"]) {
      const src = parseYamlSource("t.yaml", text);
      expect(() => interpolateEnv(src, env)).toThrow(/malformed reference/);
    }
  });

  it("refuses a nested reference and a stray brace after one, which would be read as a path (a config trial)", () => {
    // `state: ${BOT_STATE:-${HLBOT_STATE_DIR}/nest4}` made a folder named "${HLBOT_STATE_DIR/nest4}": a
    // fresh journal, budgets and daily limits forgotten; `${X:-/tmp/x}}` made "/tmp/x}".
    const nested = parseYamlSource("t.yaml", "state: ${BOT_STATE:-${HLBOT_STATE_DIR}/nest4}\n");
    expect(() => interpolateEnv(nested, { HLBOT_STATE_DIR: "/srv/hlbot" })).toThrow(
      /^t\.yaml:1: state: nested reference \$\{BOT_STATE:-\$\{HLBOT_STATE_DIR\}…: a default may not hold another/,
    );
    const stray = parseYamlSource("t.yaml", "state: ${HLBOT_STATE:-/tmp/x}}\n");
    expect(() => interpolateEnv(stray, {})).toThrow(
      /a `\}` right after \$\{HLBOT_STATE:-\/tmp\/x\} \(one too many\?\)/,
    );
    // A literal `$${` and a brace apart from a reference are left as they are.
    for (const [text, want] of [
      ["a: $${X}}\n", "${X}}"],
      ["a: '${X} }'\n", "1 }"],
      ["a: '{${X}}'\n", "{1}"],
    ]) {
      const src = parseYamlSource("t.yaml", text!);
      interpolateEnv(src, { X: "1" });
      expect(src.doc.toJS().a).toBe(want);
    }
  });
});

describe("numbers", () => {
  it("YAML numbers and decimal strings mean the same exact decimal", async () => {
    const asNumbers = await loadStrategyFile(
      file(
        STRATEGY("  coin: HYPE\n  side: buy\n  amountUsd: 100.1\n  limitPx: 0.3\n  twap: {minutes: 30}\n"),
      ),
      {},
    );
    const asStrings = await loadStrategyFile(
      file(
        STRATEGY(
          '  coin: HYPE\n  side: buy\n  amountUsd: "100.10"\n  limitPx: "0.3"\n  twap: {minutes: 30}\n',
        ),
      ),
      {},
    );
    if (asNumbers.kind !== "twap-accumulate" || asStrings.kind !== "twap-accumulate")
      throw new Error("unreachable");
    expect(asNumbers.params.amountUsd.eq(asStrings.params.amountUsd)).toBe(true);
    expect(asNumbers.params.limitPx?.toFixed()).toBe("0.3");
    expect(asStrings.params.limitPx?.toFixed()).toBe("0.3");
  });

  it("a YAML number with more digits than a double holds keeps them all", () => {
    const src = parseYamlSource(
      "t.yaml",
      "a: 0.12345678901234567890123\nb: 123456789012345678901\nc: 1.5\nd: 0x10\n",
    );
    keepExactNumbers(src);
    expect(src.doc.toJS()).toEqual({
      a: "0.12345678901234567890123",
      b: "123456789012345678901",
      c: 1.5,
      d: "0x10",
    });
  });

  it("refuses exponents and junk in decimal strings", async () => {
    const err = await configError(
      loadStrategyFile(
        file(STRATEGY('  coin: HYPE\n  side: buy\n  amountUsd: "1e3"\n  twap: {minutes: 30}\n')),
        {},
      ),
    );
    expect(err).toMatchObject({ line: 7, keyPath: "params.amountUsd" });
    expect(err.message).toMatch(/expected a decimal number/);
  });
});

describe("document shape", () => {
  it("refuses an empty file and a top-level list", async () => {
    expect((await configError(loadConfig(file(""), {}))).message).toMatch(/file is empty/);
    expect((await configError(loadConfig(file("- a\n- b\n"), {}))).message).toMatch(
      /mapping of keys at the top level/,
    );
  });

  it("refuses several YAML documents in one file", async () => {
    const err = await configError(loadConfig(file("network: testnet\n---\nnetwork: mainnet\n"), {}));
    expect(err.message).toMatch(/invalid YAML/);
    expect(err.line).toBe(2);
  });
});
