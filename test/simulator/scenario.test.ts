import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { ConfigError } from "../../src/lib/errors.js";
import {
  DEMO_SCENARIO_PATH,
  loadScenarioFile,
  parseScenarioObject,
  parseScenarioYaml,
  resolveScenario,
} from "../../src/simulator/scenario.js";

const dir = mkdtempSync(join(tmpdir(), "hlbot-scenario-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MINIMAL = `
tokens:
  - { name: USDC, index: 0, szDecimals: 8, weiDecimals: 8 }
  - { name: HYPE, index: 150, szDecimals: 2, weiDecimals: 8 }
pairs:
  - { index: 107, base: HYPE, quote: USDC }
`;

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error("expected a ConfigError");
}

describe("scenario files", () => {
  it("loads the bundled demo: tokens, pairs, validators (one jailed, one inactive), accounts", () => {
    const s = loadScenarioFile(DEMO_SCENARIO_PATH);
    const usdc = s.tokens.find((t) => t.name === "USDC")!;
    const hype = s.tokens.find((t) => t.name === "HYPE")!;
    expect([usdc.index, usdc.szDecimals, usdc.weiDecimals]).toEqual([0, 8, 8]);
    expect([hype.szDecimals, hype.weiDecimals]).toEqual([2, 8]);
    expect(s.pairs.some((p) => p.base === "HYPE" && p.quote === "USDC")).toBe(true);
    expect(s.validators.length).toBeGreaterThanOrEqual(6);
    expect(s.validators.filter((v) => v.isJailed)).toHaveLength(1);
    expect(s.validators.filter((v) => !v.isActive)).toHaveLength(1);
    expect(new Set(s.validators.map((v) => v.commission.toString())).size).toBeGreaterThan(3);
    expect(s.delegations.length).toBeGreaterThan(0);
    // Hex-looking values stay text, lower-cased.
    expect(s.agents[0]!.address).toBe("0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc");
    expect(resolveScenario(undefined).name).toBe(s.name);
  });

  it("applies defaults for every tunable", () => {
    const s = parseScenarioYaml(MINIMAL);
    expect(s.settings.nonceSetSize).toBe(20);
    expect(s.settings.nonceSetMax).toBe(100);
    expect(s.settings.nonceWindowPast).toBe(86_400_000);
    expect(s.settings.twapMaxMinutes).toBe(10_080);
    expect(s.settings.twapMinSliceValue.toString()).toBe("0");
    expect(s.settings.twapMinOrderValue.toString()).toBe("100");
    expect(s.settings.withdrawalDelay).toBe(7 * 86_400_000);
    expect(s.settings.rateLimit).toEqual({ capacity: 1200, window: 60_000 });
  });

  it("names the key path and line of a bad value", () => {
    const text = `${MINIMAL}validators:
  - address: "0x5ac99df645f3414876c816caa18b2d234024b487"
    name: V
    commission: "1.5"
`;
    const err = configError(() => parseScenarioYaml(text, "bad.yaml"));
    expect(err.keyPath).toBe("validators[0].commission");
    expect(err.line).toBe(10);
    expect(err.file).toBe("bad.yaml");
    expect(err.message).toMatch(/bad\.yaml:10: validators\[0\]\.commission: .*fraction/);
  });

  it("a length written in a scenario file names its unit; one given in code is milliseconds", () => {
    // A documentation trial: a price point `at: 6` (meant as 6 h) took effect 6 ms into the run, and a
    // validator's `unjailableIn: 6` was 6 ms; events refused a bare number already.
    const points = (at: string) =>
      `${MINIMAL}prices:\n  "@107":\n    points:\n      - { at: ${at}, px: "25" }\n`;
    const bare = configError(() => parseScenarioYaml(points("6"), "p.yaml"));
    expect(bare.keyPath).toBe("prices.@107.points[0].at");
    expect(bare.line).toBe(10);
    expect(bare.message).toMatch(/give the duration's unit: "6d", "6h", "6m", "6s" or "6ms"/);
    expect(parseScenarioYaml(points("6h")).prices["@107"]).toMatchObject({ points: [{ at: 6 * 3_600_000 }] });
    const jail = `${MINIMAL}validators:
  - { address: "0x5ac99df645f3414876c816caa18b2d234024b487", name: V, commission: "0.05", isJailed: true, unjailableIn: 6 }
`;
    expect(configError(() => parseScenarioYaml(jail, "v.yaml")).keyPath).toBe("validators[0].unjailableIn");
    // Settings keep milliseconds (the venue's own figures); a scenario built in code gives them too.
    expect(parseScenarioYaml(`${MINIMAL}settings:\n  blockTime: 250\n`).settings.blockTime).toBe(250);
    const fromCode = parseScenarioObject({
      ...parseYaml(MINIMAL),
      prices: {
        "@107": {
          points: [
            { at: 0, px: "25" },
            { at: 60_000, px: "26" },
          ],
        },
      },
    });
    expect(fromCode.prices["@107"]).toMatchObject({ points: [{ at: 0 }, { at: 60_000 }] });
  });

  it("a bot, strategy or sweep file given as a scenario is said to be one, in a sentence", () => {
    // A documentation trial: `--scenario config/demo.yaml` read "tokens: Invalid input …; network: unknown key".
    expect(
      configError(() => parseScenarioYaml("network: testnet\nstrategies: ./s\n", "b.yaml")).message,
    ).toMatch(/^b\.yaml: this is a bot file, not a scenario of the simulator/);
    expect(
      configError(() =>
        parseScenarioYaml('name: x\nkind: twap-accumulate\nschedule: "0 9 * * *"\n', "s.yaml"),
      ).message,
    ).toMatch(/this is a strategy file, not a scenario/);
    expect(configError(() => parseScenarioYaml("grid:\n  a: [1, 2]\n", "w.yaml")).message).toMatch(
      /this looks like a sweep file/,
    );
  });

  it("refuses a price below its pair's smallest price step (8 − szDecimals decimals), at its line", () => {
    // HYPE has 2 size decimals: prices step by 0.000001.
    const start = configError(() =>
      parseScenarioYaml(`${MINIMAL}prices:\n  "@107": { start: "0.0000004" }\n`, "tiny.yaml"),
    );
    expect(start.message).toBe(
      "tiny.yaml:8: prices.@107.start: 0.0000004 is below the smallest price step of @107 (0.000001: 8 − HYPE's szDecimals 2 decimals, as on the venue); give a price of at least 0.000001, or fewer szDecimals",
    );
    const point = configError(() =>
      parseScenarioYaml(
        `${MINIMAL}prices:\n  HYPE/USDC:\n    points:\n      - { at: 0s, px: "25" }\n      - { at: 1h, px: "0.0000001" }\n`,
        "tiny.yaml",
      ),
    );
    expect(point.message).toMatch(
      /^tiny\.yaml:11: prices\.HYPE\/USDC\.points\[1\]\.px: 0\.0000001 is below the smallest price step/,
    );
    // One step is a price.
    expect(() =>
      parseScenarioYaml(`${MINIMAL}prices:\n  "@107": { start: "0.000001" }\n`, "ok.yaml"),
    ).not.toThrow();
  });

  it("refuses a HYPE of another wei unit than the venue's 8 (staking amounts are HYPE × 10^8)", () => {
    const err = configError(() =>
      parseScenarioYaml(
        MINIMAL.replace("szDecimals: 2, weiDecimals: 8", "szDecimals: 2, weiDecimals: 6"),
        "wei.yaml",
      ),
    );
    expect(err.message).toBe(
      "wei.yaml:4: tokens[1].weiDecimals: HYPE has 8 wei decimals on the venue (its staking amounts are HYPE × 10^8, as hlbot signs them)",
    );
  });

  it("is read like the bot configuration: exact big numbers, and no inline private keys", () => {
    // A value a JS number would round stays exact (as the bot config reads it).
    const exact = parseScenarioYaml(`${MINIMAL}validators:
  - address: "0x5ac99df645f3414876c816caa18b2d234024b487"
    name: V
    stake: 123456789012345678.12345678
`);
    expect(exact.validators[0]!.stake.toFixed()).toBe("123456789012345678.12345678");
    const key = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318";
    const err = configError(() => parseScenarioYaml(`${MINIMAL}description: ${key}\n`, "bad.yaml"));
    expect(err.message).toMatch(/^bad\.yaml:\d+: .*looks like an inline private key/);
    expect(err.message).not.toContain(key);
  });

  it("refuses unknown keys, unknown tokens and malformed addresses, naming each", () => {
    expect(configError(() => parseScenarioYaml(`${MINIMAL}colour: blue\n`)).message).toMatch(/colour/);
    // A setting written at the top: its own line, and where it belongs (an operator's `faults:` was
    // refused at the file's first line as "(root): Unrecognized key").
    const lines = MINIMAL.split("\n").length;
    const faults = configError(() =>
      parseScenarioYaml(`${MINIMAL}faults:\n  exchange: { serverErrorRate: 0.1 }\n`, "s.yaml"),
    );
    expect(faults.message).toBe(`s.yaml:${lines}: faults: unknown key "faults" (it belongs under settings:)`);
    const pair = configError(() =>
      parseScenarioYaml(`${MINIMAL}  - { index: 1, base: PURR, quote: USDC }\n`),
    );
    expect(pair.keyPath).toBe("pairs[1].base");
    expect(pair.message).toMatch(/unknown token PURR/);
    const addr = configError(() =>
      parseScenarioYaml(`${MINIMAL}delegations:\n  - { user: "0x12", validator: "0x12", amount: 1 }\n`),
    );
    expect(addr.keyPath).toBe("delegations[0].user");
    const bal = configError(() =>
      parseScenarioYaml(
        `${MINIMAL}balances:\n  "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266": { DOGE: "1" }\n`,
      ),
    );
    expect(bal.keyPath).toBe("balances.0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266.DOGE");
    expect(configError(() => parseScenarioYaml("tokens: [\n")).message).toMatch(/invalid YAML/);
  });

  it("reads running TWAPs and refuses one on an unknown pair, already filled or already over", () => {
    const user = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
    const twap = (extra: string, pair = '"@107"') =>
      `${MINIMAL}twaps:\n  - { user: "${user}", pair: ${pair}, size: "10", minutes: 60${extra} }\n`;
    const ok = parseScenarioYaml(twap(', side: sell, startedAgo: 20m, executedSz: "3", id: 77'));
    expect(ok.twaps[0]).toMatchObject({
      pair: "@107",
      side: "sell",
      minutes: 60,
      startedAgo: 20 * 60_000,
      id: 77,
    });
    expect(ok.twaps[0]!.executedSz.toString()).toBe("3");
    const at = (extra: string, pair?: string) =>
      configError(() => parseScenarioYaml(twap(extra, pair), "s.yaml"));
    expect(at(", side: buy", "HYPE/PURR").message).toMatch(/no pair named HYPE\/PURR/);
    expect(at(', side: buy, executedSz: "10"').keyPath).toBe("twaps[0].executedSz");
    expect(at(", side: buy, startedAgo: 1h").keyPath).toBe("twaps[0].startedAgo");
    expect(at(", side: short").keyPath).toBe("twaps[0].side");
  });

  it("reads an account's staking history and refuses an event of no known kind", () => {
    const user = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
    const history = (event: string) =>
      `${MINIMAL}staking:\n  "${user}":\n    history:\n      - { time: "2025-01-01T00:00:00Z", delta: ${event} }\n`;
    const ok = parseScenarioYaml(history('{ withdrawal: { amount: "5", phase: initiated } }'));
    expect(ok.staking[user]!.history[0]).toMatchObject({ time: Date.UTC(2025, 0, 1) });
    const bad = configError(() =>
      parseScenarioYaml(history('{ withdrawal: { amount: "5", phase: later } }')),
    );
    expect(bad.keyPath).toMatch(/^staking\.0xf39f.*\.history\[0\]\.delta/);
  });

  it("keeps integers beyond 2^53 exact and accepts durations and decimals in either spelling", () => {
    const s = parseScenarioYaml(`${MINIMAL}validators:
  - { address: "0x5ac99df645f3414876c816caa18b2d234024b487", name: V, stake: 123456789012345678, commission: 0.05 }
settings:
  delegationLock: 2h
  twapSliceInterval: 15000
`);
    expect(s.validators[0]!.stake.toFixed()).toBe("123456789012345678");
    expect(s.validators[0]!.commission.toString()).toBe("0.05");
    expect(s.settings.delegationLock).toBe(7_200_000);
    expect(s.settings.twapSliceInterval).toBe(15_000);
  });

  it("reads files and reports unreadable ones as config errors; accepts objects", () => {
    const file = join(dir, "s.yaml");
    writeFileSync(file, MINIMAL);
    expect(loadScenarioFile(file).pairs[0]!.index).toBe(107);
    expect(configError(() => loadScenarioFile(join(dir, "missing.yaml"))).file).toMatch(/missing\.yaml/);
    const obj = parseScenarioObject({ tokens: [{ name: "USDC", index: 0, szDecimals: 8, weiDecimals: 8 }] });
    expect(parseScenarioObject(obj)).toBe(obj);
    expect(configError(() => parseScenarioObject({ tokens: [] })).keyPath).toBe("tokens");
  });
});
