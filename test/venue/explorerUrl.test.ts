// explorerUrl: where txDetails goes. Default {base}/info with a custom base URL (so the simulator keeps
// working), the network's explorer otherwise; `explorerUrl` in the config or --explorer-url overrides
// both, since the real explorer lives on another host than the API.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { botConfigSchema } from "../../src/engine/config/schema.js";
import { resolveEndpoints } from "../../src/venue/networks.js";
import { buildOnce, REPO_ROOT } from "../helpers/build.js";
import { startHttpServer, type TestHttpServer } from "../helpers/httpServer.js";

const HASH = `0x${"ab".repeat(32)}`;

describe("resolveEndpoints and explorerUrl", () => {
  it("defaults, and overrides", () => {
    expect(resolveEndpoints("mainnet").explorer).toBe("https://rpc.hyperliquid.xyz/explorer");
    expect(resolveEndpoints("testnet", "http://127.0.0.1:9/").explorer).toBe("http://127.0.0.1:9/info");
    expect(resolveEndpoints("testnet", "http://127.0.0.1:9", "http://127.0.0.1:8/explorer").explorer).toBe(
      "http://127.0.0.1:8/explorer",
    );
    expect(resolveEndpoints("mainnet", undefined, "https://explorer.example/x").explorer).toBe(
      "https://explorer.example/x",
    );
    expect(() => resolveEndpoints("mainnet", undefined, "ftp://x")).toThrow(/explorerUrl: expected an http/);
  });

  it("refuses a base URL that already ends in /info or /exchange (it posted to /info/info: a bare 404)", () => {
    for (const [base, endpoint] of [
      ["http://127.0.0.1:3001/info", "/info"],
      ["http://127.0.0.1:3001/exchange/", "/exchange"],
      ["https://proxy.example/hl/info?key=1", "/info"],
      ["http://127.0.0.1:3001/INFO", "/INFO"],
    ])
      expect(() => resolveEndpoints("testnet", base)).toThrow(
        `baseUrl: ends in ${endpoint}: give the base URL without it`,
      );
    // `config validate` says the same at the bot file's line (the schema).
    const field = botConfigSchema.shape.baseUrl.safeParse("http://127.0.0.1:3001/info");
    expect(field.success).toBe(false);
    expect(field.error?.issues[0]?.message).toMatch(/^ends in \/info: give the base URL without it/);
    expect(botConfigSchema.shape.baseUrl.safeParse("http://127.0.0.1:3001").success).toBe(true);
    // A prefix of another name is a base like any other.
    expect(resolveEndpoints("testnet", "https://proxy.example/information").info).toBe(
      "https://proxy.example/information/info",
    );
  });
});

describe("hlbot tx with --explorer-url", () => {
  let api: TestHttpServer;
  let explorer: TestHttpServer;
  const answer = {
    type: "txDetails",
    tx: { action: { type: "noop" }, block: 1, error: null, hash: HASH, time: 1, user: `0x${"1".repeat(40)}` },
  };
  beforeAll(async () => {
    buildOnce();
    api = await startHttpServer([{ json: { type: "error", message: "wrong host" } }]);
    explorer = await startHttpServer([{ json: answer }]);
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await explorer?.close();
  });

  it("posts txDetails to the explorer URL, not to {base}/info", async () => {
    const { code, stdout, stderr } = await new Promise<{
      code: number | null;
      stdout: string;
      stderr: string;
    }>((resolve) => {
      const child = spawn(
        process.execPath,
        [
          join(REPO_ROOT, "bin/hlbot.js"),
          "tx",
          HASH,
          "--base-url",
          api.url,
          "--explorer-url",
          `${explorer.url}/explorer`,
        ],
        { env: { PATH: process.env.PATH ?? "" } },
      );
      let out = "";
      let err = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (err += d));
      child.on("close", (c) => resolve({ code: c, stdout: out, stderr: err }));
    });
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout).tx.hash).toBe(HASH);
    expect(api.requests).toHaveLength(0);
    expect(explorer.requests.map((r) => r.path)).toEqual(["/explorer"]);
  });
});
