// A user's trial: `coin: HYPEE` in a strategy ran "successfully", its only trace a skip ("no spot pair
// trades HYPEE against USDC") on every run. The markets strategies name are now looked up in the venue's
// metadata before a bot acts: an unknown one is an error with the strategy file's line.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigIssuesError } from "../../src/engine/config/issues.js";
import { loadConfig } from "../../src/engine/config/loader.js";
import { checkStrategyMarkets, unknownMarkets } from "../../src/engine/strategies/markets.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { createSimulator } from "../../src/simulator/index.js";
import { InfoClient } from "../../src/venue/info/client.js";
import { HttpTransport } from "../../src/venue/transport/http.js";
import { REPO_ROOT } from "../helpers/build.js";

const temp = mkdtempSync(join(tmpdir(), "hlbot-markets-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** The demo bot in its own folder, with `edits` applied to its strategy files (file → [from, to]). */
async function demoBot(name: string, edits: Record<string, Array<[string, string]>>) {
  const dir = join(temp, name);
  cpSync(join(REPO_ROOT, "config/demo-strategies"), join(dir, "demo-strategies"), { recursive: true });
  writeFileSync(join(dir, "demo.yaml"), readFileSync(join(REPO_ROOT, "config/demo.yaml"), "utf8"));
  for (const [file, changes] of Object.entries(edits)) {
    const path = join(dir, "demo-strategies", file);
    let text = readFileSync(path, "utf8");
    for (const [from, to] of changes) text = text.replace(from, to);
    writeFileSync(path, text);
  }
  return loadConfig(join(dir, "demo.yaml"), {});
}

function venueInfo() {
  const sim = createSimulator({ rateLimit: false });
  const transport = new HttpTransport({
    endpoints: {
      info: "http://venue.invalid/info",
      exchange: "http://venue.invalid/exchange",
      explorer: "http://venue.invalid/explorer",
    },
    wire: sim.wire,
    budget: null,
  });
  return new InfoClient(transport);
}

async function problems(config: Awaited<ReturnType<typeof loadConfig>>): Promise<string[]> {
  const err = await checkStrategyMarkets(venueInfo(), config.strategies).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (err === undefined) return [];
  expect(err).toBeInstanceOf(ConfigIssuesError);
  return (err as ConfigIssuesError).issues.map(
    (i) => `${i.file.split("/").pop()}:${i.line}: ${i.keyPath}: ${i.message}`,
  );
}

describe("the markets strategies name", () => {
  it("pass when the venue lists them (a token against its quote, or a pair's venue name)", async () => {
    expect(await problems(await demoBot("ok", {}))).toEqual([]);
    expect(
      await problems(await demoBot("pair-name", { "hype-dca.yaml": [["coin: HYPE", 'coin: "@107"']] })),
    ).toEqual([]);
  });

  it("name every unknown coin, target and quote with its file and line, and a likely spelling", async () => {
    const config = await demoBot("typos", {
      "hype-dca.yaml": [["coin: HYPE", "coin: HYPEE"]],
      "purr-allocation.yaml": [["PURR: 0.15", "PUR: 0.15"]],
    });
    expect(await problems(config)).toEqual([
      'hype-dca.yaml:8: params.coin: HYPEE is not a spot token on the venue (did you mean "HYPE"?)',
      'purr-allocation.yaml:9: params.targets.PUR: PUR is not a spot token on the venue (did you mean "PURR"?)',
    ]);
    // A simulation stops before its first cycle, as for any other mistake in the files.
    await expect(runSimulation({ config, days: 1 })).rejects.toThrow(/HYPEE is not a spot token/);
  });

  it("name an unknown quote at its own line, not the coin's (a config trial: quote: usdc was reported as params.coin)", async () => {
    expect(
      await problems(await demoBot("quote-case", { "hype-dca.yaml": [["quote: USDC", "quote: usdc"]] })),
    ).toEqual([
      'hype-dca.yaml:9: params.quote: usdc is not a spot token on the venue (did you mean "USDC"?)',
    ]);
  });

  it("refuse a rebalancer target named by its pair ('@107', 'PURR/USDC'): it was skipped as not listed at every run, with no error (a config trial)", async () => {
    for (const [name, pair, token] of [
      ["@107", "HYPE/USDC", "HYPE"],
      ["PURR/USDC", "PURR/USDC", "PURR"],
    ]) {
      const config = await demoBot(`target-pair-${name!.replace("/", "-")}`, {
        "purr-allocation.yaml": [["PURR: 0.15", `"${name}": 0.15`]],
      });
      expect(await problems(config)).toEqual([
        `purr-allocation.yaml:9: params.targets.${name}: ${name} is the pair ${pair}, not a token: name the token (${token})`,
      ]);
    }
  });

  it("say how to write a pair the venue names otherwise ('HYPE/USDC' is '@107'), in a DCA and in a rebalancer's targets", async () => {
    expect(
      await problems(await demoBot("slash-dca", { "hype-dca.yaml": [["coin: HYPE", "coin: HYPE/USDC"]] })),
    ).toEqual([
      "hype-dca.yaml:8: params.coin: HYPE/USDC is not a pair name on the venue (it names this pair @107): write coin: HYPE and quote: USDC",
    ]);
    expect(
      await problems(
        await demoBot("slash-target", { "purr-allocation.yaml": [["PURR: 0.15", '"HYPE/USDC": 0.15']] }),
      ),
    ).toEqual([
      "purr-allocation.yaml:9: params.targets.HYPE/USDC: HYPE/USDC is not a pair name on the venue (it names this pair @107): name the token (HYPE)",
    ]);
  });

  it("leave disabled strategies alone", async () => {
    const config = await demoBot("disabled", {
      "hype-dca.yaml": [
        ["coin: HYPE", "coin: HYPEE"],
        ["kind: twap-accumulate", "kind: twap-accumulate\nenabled: false"],
      ],
    });
    expect(await problems(config)).toEqual([]);
  });

  it("warns, from the venue's metadata, of a DCA naming its pair by venue name ('@107') that a rebalancer trades back", async () => {
    const config = await demoBot("venue-name-fight", {
      "hype-dca.yaml": [["coin: HYPE", 'coin: "@107"']],
      "purr-allocation.yaml": [["PURR: 0.15", "HYPE: 0.05\n    PURR: 0.1"]],
    });
    const warned: string[] = [];
    await checkStrategyMarkets(venueInfo(), config.strategies, { warn: (m) => warned.push(m) });
    expect(warned).toEqual([
      expect.stringMatching(/^hype-dca buys HYPE \(@107\), which purr-allocation holds at 0.05 /),
    ]);
  });

  it("fails closed on a limits.keepOnSpot token the venue does not list: every strategy is left out (a case slip protects nothing)", async () => {
    const config = await demoBot("floor-typo", {});
    const err = await checkStrategyMarkets(venueInfo(), config.strategies, {
      floorTokens: ["usdc", "HYPE"],
      botFile: config.file,
    }).then(
      () => undefined,
      (e: unknown) => e as ConfigIssuesError,
    );
    expect(err?.issues.map((i) => [i.file.split("/").pop(), i.keyPath, i.message])).toEqual([
      [
        "demo.yaml",
        "limits.keepOnSpot.usdc",
        '"usdc" is not a spot token on the venue (did you mean "USDC"?): no floor would apply to it, so no strategy acts until it is fixed',
      ],
    ]);
    const left = await unknownMarkets(venueInfo(), config.strategies, { floorTokens: ["usdc"] });
    expect([...left.strategies].sort()).toEqual(
      config.strategies
        .filter((s) => s.enabled)
        .map((s) => s.name)
        .sort(),
    );
  });

  it("name a capital token the venue does not list (a case slip would cap nothing), with its line", async () => {
    const config = await demoBot("capital-typo", {
      "hype-dca.yaml": [["kind: twap-accumulate", "kind: twap-accumulate\ncapital: {usdc: 120}"]],
    });
    expect(await problems(config)).toEqual([
      expect.stringMatching(
        /^hype-dca\.yaml:\d+: capital\.usdc: "usdc" is not a spot token on the venue \(did you mean "USDC"\?\): this capital would cap nothing/,
      ),
    ]);
    const ok = await demoBot("capital-ok", {
      "hype-dca.yaml": [["kind: twap-accumulate", "kind: twap-accumulate\ncapital: {USDC: 120}"]],
    });
    expect(await problems(ok)).toEqual([]);
  });

  it("refuse a pair's venue name with another quote written beside it (it would trade the pair's own quote)", async () => {
    const mismatch = await demoBot("pair-quote", {
      "hype-dca.yaml": [
        ["coin: HYPE", 'coin: "@107"'],
        ["quote: USDC", "quote: PURR"],
      ],
    });
    expect(await problems(mismatch)).toEqual([
      expect.stringMatching(
        /^hype-dca\.yaml:\d+: params\.quote: @107 is the pair HYPE\/USDC, which trades against USDC, not PURR: write quote: USDC/,
      ),
    ]);
    // The pair's own quote written (the demo file's), or none: fine.
    const same = await demoBot("pair-quote-same", { "hype-dca.yaml": [["coin: HYPE", 'coin: "@107"']] });
    expect(await problems(same)).toEqual([]);
    const none = await demoBot("pair-quote-none", {
      "hype-dca.yaml": [
        ["coin: HYPE", 'coin: "@107"'],
        ["  quote: USDC\n", ""],
      ],
    });
    expect(none.strategies.find((s) => s.name === "hype-dca")?.params).toMatchObject({ coin: "@107" });
    expect(await problems(none)).toEqual([]);
  });
});
