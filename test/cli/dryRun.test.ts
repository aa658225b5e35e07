// Dry-run output is not a live order (issue #17.6): a dry run prints the UNSIGNED request (action,
// nonce, the digest a key would sign); posting that output to the venue executes nothing. Only an
// explicit --sign prints a signed body, and then stderr says in words that anyone who has it can
// execute it. `--dry-run` forces dry run on every command that can send, even next to `--live`.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SigningKey, Wallet } from "ethers";
import { afterEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { main } from "../../src/cli/main.js";
import { parseJson } from "../../src/lib/json.js";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { startHttpServer, type TestHttpServer } from "../helpers/httpServer.js";
import { independentL1Signer, independentUserSigner, type WireBody } from "../helpers/independentSigning.js";
import { demoWithHypeAt } from "../helpers/scenario.js";

async function cli(args: string[], env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, {
    stdout: (t) => void out.push(t),
    stderr: (t) => void err.push(t),
    env,
    isTTY: false,
  });
  return { code, stdout: out.join(""), stderr: err.join("") };
}

/** Signs a printed digest with the key, as a wallet would. */
function signDigest(key: string, digest: string) {
  const sig = new SigningKey(key).sign(digest);
  return { r: sig.r, s: sig.s, v: sig.v };
}

describe("--dry-run", () => {
  let server: TestHttpServer | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // Changed deliberately for #17.6: these printed a signed body; the default is now unsigned.
  it.each([
    ["stake", ["--amount", "1"]],
    ["delegate", ["--validator", "0xb8f45222a3246a2b0104696a1df26842007c5bc5", "--amount", "1"]],
    ["link-staking", ["--user", "0x3333333333333333333333333333333333333333"]],
  ])("%s --live --dry-run prints the unsigned body but sends nothing", async (command, args) => {
    server = await startHttpServer([{ json: { status: "ok", response: { type: "default" } } }]);
    dir = mkdtempSync(join(tmpdir(), "hlbot-dry-"));
    const wallet = Wallet.createRandom();
    const run = await cli(
      [command, ...args, "--live", "--dry-run", "--base-url", server.url, "--state", dir],
      {
        HLBOT_PRIVATE_KEY: wallet.privateKey,
      },
    );
    expect(run.code).toBe(0);
    const body = parseJson(run.stdout) as Record<string, unknown>;
    expect(body.unsigned).toBe(true);
    expect(body).not.toHaveProperty("signature");
    expect(body.digest).toMatch(/^0x[0-9a-f]{64}$/);
    expect(server.requests).toEqual([]);
    // Says which flag won, not "Add --live" to one who gave it (a docs trial).
    expect(run.stderr).toMatch(/--dry-run wins over --live: drop --dry-run to send it\./);
    expect(run.stderr).not.toContain("Add --live");
    if (command === "link-staking") expect(run.stderr).toMatch(/warning: a staking link is PERMANENT/);
  });
});

describe("link-staking --user", () => {
  it("refuses a placeholder address (a link is permanent), before any key or venue is used", async () => {
    const run = await cli(
      ["link-staking", "--user", "0x0000000000000000000000000000000000000001", "--live"],
      {},
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--user: 0x0+1 is a placeholder, not an account: a staking link is permanent/);
  });
});

describe("dry-run output is not a live order", () => {
  let sim: (Simulator & { url: string }) | undefined;
  afterEach(async () => {
    await sim?.stop();
    sim = undefined;
  });

  it("the default output of `stake` posted to the venue executes nothing; the --sign output would (and says so)", async () => {
    sim = await startSimulator({ clock: "real", rateLimit: false });
    const wallet = Wallet.createRandom();
    const address = wallet.address.toLowerCase();
    sim.fund(address, "HYPE", "10");
    const env = { HLBOT_PRIVATE_KEY: wallet.privateKey };
    const post = (text: string) =>
      fetch(`${sim!.url}/exchange`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: text,
      });

    const dry = await cli(["stake", "--amount", "3", "--base-url", sim.url], env);
    expect(dry.code).toBe(0);
    expect(dry.stderr).toMatch(/UNSIGNED/);
    expect(dry.stderr).not.toMatch(/anyone who has it/);
    const view = parseJson(dry.stdout) as WireBody & { unsigned: boolean; digest: string };
    expect(Object.keys(view)).toEqual(["unsigned", "action", "nonce", "digest"]);
    const answer = await post(dry.stdout);
    expect(answer.status === 200 ? ((await answer.json()) as { status: string }).status : "refused").not.toBe(
      "ok",
    );
    expect(sim.ledger().filter((e) => e.kind === "cDeposit")).toHaveLength(0);

    // The digest is exactly what the key signs: signed here by hand, ethers' independent EIP-712
    // implementation recovers the key's address from it.
    const signature = signDigest(wallet.privateKey, view.digest);
    expect(independentUserSigner({ action: view.action, nonce: view.nonce, signature } as WireBody)).toBe(
      address,
    );

    const signed = await cli(["stake", "--amount", "3", "--base-url", sim.url, "--sign"], env);
    expect(signed.code).toBe(0);
    expect(signed.stderr).toMatch(
      /anyone who has it can send it to the venue and execute it, without your key/,
    );
    const body = parseJson(signed.stdout) as WireBody;
    expect(independentUserSigner(body)).toBe(address);
    // … and it really is a live order: the venue executes it for whoever posts it.
    const executed = await post(signed.stdout);
    expect(((await executed.json()) as { status: string }).status).toBe("ok");
    expect(sim.ledger().filter((e) => e.kind === "cDeposit")).toHaveLength(1);
  });

  it("an unsigned twap shows expiresAfter and the L1 digest, which the independent recipe accepts", async () => {
    const wallet = Wallet.createRandom();
    const run = await cli(
      ["twap", "buy", "--asset", "10107", "--sz-decimals", "2", "--size", "1", "--minutes", "30"],
      { HLBOT_PRIVATE_KEY: wallet.privateKey },
    );
    expect(run.code).toBe(0);
    const view = parseJson(run.stdout) as WireBody & { digest: string };
    expect(Object.keys(view)).toEqual(["unsigned", "action", "nonce", "expiresAfter", "digest"]);
    const signature = signDigest(wallet.privateKey, view.digest);
    expect(independentL1Signer({ ...view, signature } as WireBody, "testnet")).toBe(
      wallet.address.toLowerCase(),
    );
  });

  it("once --dry-run prints unsigned requests too", async () => {
    sim = await startSimulator({ clock: "real", rateLimit: false, scenario: demoWithHypeAt("40") });
    const wallet = Wallet.createRandom();
    sim.fund(wallet.address.toLowerCase(), "HYPE", "1000");
    sim.fund(wallet.address.toLowerCase(), "USDC", "5000");
    const dir = mkdtempSync(join(tmpdir(), "hlbot-dry-once-"));
    try {
      writeFileSync(
        join(dir, "rebalance.yaml"),
        stringify({
          name: "rebalance",
          kind: "twap-rebalance",
          // Every 2 seconds: the first `once` only registers the schedule, the next acts in its slot.
          schedule: "*/2 * * * * *",
          params: { targets: { HYPE: 0.5, USDC: 0.5 }, quote: "USDC", band: 0.05, twap: { minutes: 60 } },
        }),
      );
      writeFileSync(
        join(dir, "bot.yaml"),
        stringify({
          network: "testnet",
          baseUrl: sim.url,
          mode: "live",
          strategies: ["rebalance.yaml"],
          state: "./state",
          // These tests may schedule strategies by the second.
          schedule: { allowSeconds: true },
          limits: { maxOrderUsd: 100000, maxDailyNotionalUsd: 1000000, maxStakeMovePerDay: 1000 },
          log: { level: "warn", format: "json" },
        }),
      );
      const once = () =>
        cli(["once", "--dry-run", "--json", "--config", join(dir, "bot.yaml")], {
          HLBOT_PRIVATE_KEY: wallet.privateKey,
        });
      expect((await once()).code).toBe(0);
      await new Promise((r) => setTimeout(r, 2_100));
      const run = await once();
      expect(run.code, run.stderr).toBe(0);
      const line = parseJson(run.stdout.trim().split("\n")[0] ?? "") as {
        outcome: string;
        request: Record<string, unknown>;
      };
      expect(line.outcome).toBe("dry-run");
      expect(line.request).not.toHaveProperty("signature");
      expect(line.request).toMatchObject({ unsigned: true, action: { type: "twapOrder" } });
      expect(sim.ledger().filter((e) => e.kind === "twapPlaced")).toHaveLength(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("--help of a manual command says what --sign output is", async () => {
    const run = await cli(["unstake", "--help"], {});
    expect(run.stdout.replace(/\s+/g, " ")).toMatch(
      /--sign .*SIGNED body .* anyone who has that output can execute it on the venue without your key/,
    );
  });
});
