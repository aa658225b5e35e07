// A security audit: with the key in a file or a variable the bot file's wallet names
// (`wallet.privateKeyFile`, `wallet.privateKeyEnv`), a key pasted where a hash or a URL goes was sent:
// `tx <key> --base-url …` and `info … --base-url …/<key>` never load the bot file (its wallet's secrets
// were never known), and `tx <key>` without --base-url loaded it, met the refusal, swallowed it and asked
// the default network's public explorer instead. The same key in HLBOT_PRIVATE_KEY was refused.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { botFileVenue } from "../../src/cli/bot.js";
import type { CliContext } from "../../src/cli/context.js";
import { main } from "../../src/cli/main.js";
import { clearSecretsForTests, guardArguments, SecretArgumentError } from "../../src/lib/secrets.js";
import { startHttpServer, type TestHttpServer } from "../helpers/httpServer.js";

const KEY = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318";
let dir: string;
let venue: TestHttpServer;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "hlbot-wallet-secrets-"));
  writeFileSync(join(dir, "key.hex"), `${KEY}\n`, { mode: 0o600 });
  writeFileSync(
    join(dir, "dca.yaml"),
    'name: dca\nkind: twap-accumulate\nschedule: "0 9 * * *"\nparams: { coin: HYPE, side: buy, amountUsd: 100, twap: { minutes: 30 } }\n',
  );
  venue = await startHttpServer([{ json: null }]);
});
afterEach(async () => {
  clearSecretsForTests();
  guardArguments(undefined);
  await venue.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A bot file whose wallet is `wallet` (YAML lines), at the test's venue. */
function botFile(wallet: string): string {
  const file = join(dir, "bot.yaml");
  writeFileSync(
    file,
    `network: testnet
mode: live
baseUrl: ${venue.url}
explorerUrl: ${venue.url}/explorer
wallet:
${wallet}
strategies: [./dca.yaml]
state: ./state
limits: { maxOrderUsd: 500, maxDailyNotionalUsd: 2000, maxStakeMovePerDay: 500 }
`,
  );
  return file;
}

async function run(argv: string[], env: Record<string, string>) {
  let stderr = "";
  const code = await main(argv, {
    stdout: () => {},
    stderr: (t) => {
      stderr += t;
    },
    env,
    isTTY: false,
  });
  return { code, stderr };
}

it.each([
  ["a key file", "  privateKeyFile: ./key.hex", {}],
  ["a variable of its own", "  privateKeyEnv: MY_HL_KEY", { MY_HL_KEY: KEY }],
])("with %s: refused before anything is sent, whatever the command line", async (_what, wallet, vars) => {
  const env = { HLBOT_CONFIG: botFile(wallet), ...vars };
  const keyAsHash = await run(["tx", KEY, "--base-url", `${venue.url}/tx`], env);
  const keyInUrl = await run(["info", "spotMeta", "--base-url", `${venue.url}/${KEY}`], env);
  const byBotFile = await run(["tx", KEY.toUpperCase().replace("0X", "0x")], env);
  for (const r of [keyAsHash, keyInUrl, byBotFile]) {
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/holds the signing key or the keystore password; refused, nothing was sent/);
    expect(r.stderr.toLowerCase()).not.toContain(KEY.slice(2));
  }
  expect(venue.requests.map((q) => `${q.path} ${q.body}`)).toEqual([]);
});

it("the bot file's venue is not swapped for the default network's when its wallet finds a key in the arguments", async () => {
  // Known only once the bot file loads (what the start-up check may miss): the refusal goes up.
  const env = { HLBOT_CONFIG: botFile("  privateKeyFile: ./key.hex") };
  guardArguments(["tx", KEY]);
  const ctx = { env, stderr: () => {} } as unknown as CliContext;
  await expect(botFileVenue(ctx, {})).rejects.toBeInstanceOf(SecretArgumentError);
});

it("tx and info txDetails ask the bot file's explorerUrl (they asked its baseUrl's /info)", async () => {
  const env = { HLBOT_CONFIG: botFile("  privateKeyEnv: MY_HL_KEY") };
  const hash = `0x${"11".repeat(32)}`;
  await run(["tx", hash], env);
  await run(["info", "txDetails", "--hash", hash], env);
  const paths = [...new Set(venue.requests.map((q) => q.path))];
  expect(paths).toEqual(["/explorer"]);
});
