// A review of the secrets fixes: a key read from a key file (HLBOT_PRIVATE_KEY_FILE) was checked against
// the arguments only when the signer loaded it, after a manual command (`twap`) or `status --user` had
// queried the venue at a --base-url holding that key (the key went out as the URL path), and `status`
// swallowed the refusal (exit 0). A key file's key is now known when the command starts. And command
// output passed through redaction of a short password ("100"), which turned `simulate --json` into
// invalid JSON.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { clearSecretsForTests } from "../../src/lib/secrets.js";
import { startSimulator } from "../../src/simulator/index.js";
import { startHttpServer, type TestHttpServer } from "../helpers/httpServer.js";

const KEY = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const ADDRESS = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const dirs: string[] = [];
afterEach(() => {
  clearSecretsForTests();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function run(argv: string[], env: Record<string, string>) {
  let stderr = "";
  let stdout = "";
  const code = await main(argv, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env,
    isTTY: false,
  });
  return { code, stdout, stderr };
}

/** A venue at `<proxy>/<anything>/info`, recording every path it was asked at. */
async function withProxy(fn: (proxy: TestHttpServer) => Promise<void>): Promise<void> {
  const sim = await startSimulator({ rateLimit: false });
  const proxy = await startHttpServer(async (req) => {
    const r = await fetch(`${sim.url}${req.path.replace(/^\/[^/]+(?=\/)/, "")}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: req.body,
    });
    return { status: r.status, text: await r.text(), headers: { "content-type": "application/json" } };
  });
  try {
    await fn(proxy);
  } finally {
    await proxy.close();
    await sim.stop();
  }
}

function keyDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "hlbot-keyfile-"));
  dirs.push(dir);
  writeFileSync(join(dir, "key"), `0x${KEY}\n`, { mode: 0o600 });
  return dir;
}

describe("a key file's key pasted into --base-url is refused before anything is sent", () => {
  it("hlbot twap (a manual command)", async () => {
    await withProxy(async (proxy) => {
      const dir = keyDir();
      const r = await run(
        [
          "twap",
          "buy",
          "--coin",
          "HYPE",
          "--size",
          "1",
          "--minutes",
          "10",
          "--state",
          join(dir, "st"),
          "--base-url",
          `${proxy.url}/0x${KEY}`,
        ],
        { HLBOT_PRIVATE_KEY_FILE: join(dir, "key") },
      );
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/refused, nothing was sent/);
      expect(proxy.requests).toEqual([]);
    });
  });

  it("hlbot status --user (the bot file names the key file)", async () => {
    await withProxy(async (proxy) => {
      const dir = keyDir();
      mkdirSync(join(dir, "strategies"));
      copyFileSync(
        join(__dirname, "../../strategies/twap-accumulate.yaml"),
        join(dir, "strategies", "dca.yaml"),
      );
      writeFileSync(
        join(dir, "hlbot.yaml"),
        "network: testnet\nmode: dry-run\nwallet:\n  privateKeyFile: ./key\nstrategies: ./strategies\nstate: ./state\nlimits:\n  maxOrderUsd: 500\n  maxDailyNotionalUsd: 2000\n  maxStakeMovePerDay: 500\n",
      );
      const r = await run(
        [
          "status",
          "--config",
          join(dir, "hlbot.yaml"),
          "--user",
          ADDRESS,
          "--base-url",
          `${proxy.url}/0x${KEY}`,
        ],
        {},
      );
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/holds the signing key/);
      expect(proxy.requests).toEqual([]);
    });
  });
});

describe("command output with a short keystore password in the environment", () => {
  it("simulate --json stays valid JSON with its numbers intact", async () => {
    const r = await run(
      ["simulate", "--config", join(__dirname, "../../config/demo.yaml"), "--days", "2", "--json"],
      {
        HLBOT_KEYSTORE_PASSWORD: "100",
      },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("[REDACTED]");
    expect(() => JSON.parse(r.stdout)).not.toThrow();
  }, 60_000);
});
