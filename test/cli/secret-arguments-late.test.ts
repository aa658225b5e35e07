// A security audit: README, Safety > Secrets: "a key or password held in a variable hlbot reads, pasted
// into any command-line argument, is refused". With the bot file's own `wallet.privateKeyEnv: MY_KEY`
// (a variable hlbot reads), the argv check in main() ran before the loader registers MY_KEY, and no
// check ran after it: the key pasted into --base-url is used as the URL, and every info request
// carries the key in its path to whatever host the URL names.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { clearSecretsForTests } from "../../src/lib/secrets.js";
import { startHttpServer } from "../helpers/httpServer.js";

const KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const dirs: string[] = [];
afterEach(() => {
  clearSecretsForTests();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function botDir(walletLines: string): string {
  const dir = mkdtempSync(join(tmpdir(), "hlbot-review-secrets-"));
  dirs.push(dir);
  writeFileSync(
    join(dir, "hlbot.yaml"),
    `network: testnet\nmode: dry-run\n${walletLines}strategies: ./strategies\nstate: ./state\nlimits:\n  maxOrderUsd: 500\n  maxDailyNotionalUsd: 2000\n  maxStakeMovePerDay: 500\n`,
  );
  mkdirSync(join(dir, "strategies"));
  copyFileSync(join(__dirname, "../../strategies/twap-accumulate.yaml"), join(dir, "strategies", "dca.yaml"));
  return dir;
}

async function runPlan(dir: string, env: Record<string, string>, baseUrl: string) {
  let stderr = "";
  const code = await main(["plan", "--config", join(dir, "hlbot.yaml"), "--base-url", baseUrl], {
    stdout: () => undefined,
    stderr: (t) => {
      stderr += t;
    },
    env,
    isTTY: false,
  });
  return { code, stderr };
}

describe("a key pasted into an argument, held in the variable the bot file's wallet names", () => {
  it("is refused like HLBOT_PRIVATE_KEY's, and never sent to the URL it was pasted into", async () => {
    const server = await startHttpServer(() => ({ status: 500, text: "no" }));
    try {
      const hex = KEY.slice(2);
      // Control: the default variable. Refused before anything is sent.
      const def = await runPlan(botDir(""), { HLBOT_PRIVATE_KEY: KEY }, `${server.url}/${hex}/`);
      expect(def.code).toBe(2);
      expect(server.requests).toHaveLength(0);
      clearSecretsForTests();

      // The same, with the key in MY_KEY named by wallet.privateKeyEnv.
      const own = await runPlan(
        botDir("wallet:\n  privateKeyEnv: MY_KEY\n"),
        { MY_KEY: KEY },
        `${server.url}/${hex}/`,
      );
      const sent = server.requests.filter((r) => `${r.path} ${r.body}`.toLowerCase().includes(hex));
      expect(sent.map((r) => r.path)).toEqual([]); // it was: ["/<key>/info", ...]
      expect(own.code).toBe(2);
      expect(own.stderr).toMatch(/holds the signing key/);
    } finally {
      await server.close();
    }
  });
});

describe("a keystore password pasted into `stop --reason`, held in the variable wallet.passwordEnv names", () => {
  it("is refused like HLBOT_KEYSTORE_PASSWORD's, and not written into the kill-switch file", async () => {
    const { readFileSync, existsSync } = await import("node:fs");
    const PASSWORD = "correct horse battery staple 42";
    const run = async (dir: string, env: Record<string, string>) => {
      let stderr = "";
      const code = await main(
        ["stop", "--config", join(dir, "hlbot.yaml"), "--reason", `forgot: ${PASSWORD}`],
        {
          stdout: () => undefined,
          stderr: (t) => {
            stderr += t;
          },
          env,
          isTTY: false,
        },
      );
      const stop = join(dir, "state", "STOP");
      return { code, stderr, written: existsSync(stop) ? readFileSync(stop, "utf8") : "" };
    };
    // Control: the default variable is refused before anything is written.
    const def = await run(botDir("wallet:\n  keystore: ./ks.json\n"), { HLBOT_KEYSTORE_PASSWORD: PASSWORD });
    expect(def.code).toBe(2);
    expect(def.written).toBe("");
    clearSecretsForTests();
    // The bot file's own variable: it was exit 0 and STOP holds {"reason":"forgot: correct horse ..."}.
    const own = await run(botDir("wallet:\n  keystore: ./ks.json\n  passwordEnv: KS_PW\n"), {
      KS_PW: PASSWORD,
    });
    expect(own.written).not.toContain(PASSWORD);
    expect(own.code).toBe(2);
  });
});

describe("command output passes the redaction filter (README, Safety)", () => {
  it("a keystore password that turns up in what a command prints is redacted", async () => {
    const { readFileSync } = await import("node:fs");
    const PASSWORD = "horse-battery-staple-42";
    const dir = botDir("wallet:\n  keystore: ./ks.json\n  passwordEnv: KS_PW\n");
    // A strategy named like the password (anything a command echoes: a name, a kill-switch reason).
    const file = join(dir, "strategies", "dca.yaml");
    writeFileSync(file, readFileSync(file, "utf8").replace(/^name: .*$/m, `name: ${PASSWORD}`));
    let stdout = "";
    const code = await main(["config", "validate", "--config", join(dir, "hlbot.yaml")], {
      stdout: (t) => {
        stdout += t;
      },
      stderr: () => undefined,
      env: { KS_PW: PASSWORD },
      isTTY: false,
    });
    expect(code).toBe(0);
    expect(stdout).toContain("[REDACTED] (twap-accumulate");
    expect(stdout).not.toContain(PASSWORD);
  });
});
