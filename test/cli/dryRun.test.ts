// `--dry-run` forces dry run on every command that can send, even next to `--live`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Wallet } from "ethers";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { parseJson } from "../../src/lib/json.js";
import { startHttpServer, type TestHttpServer } from "../helpers/httpServer.js";

describe("--dry-run", () => {
  let server: TestHttpServer | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ["stake", ["--amount", "1"]],
    ["delegate", ["--validator", "0xb8f45222a3246a2b0104696a1df26842007c5bc5", "--amount", "1"]],
    ["link-staking", ["--user", "0x3333333333333333333333333333333333333333"]],
  ])("%s --live --dry-run signs and prints the body but sends nothing", async (command, args) => {
    server = await startHttpServer([{ json: { status: "ok", response: { type: "default" } } }]);
    dir = mkdtempSync(join(tmpdir(), "hlbot-dry-"));
    const wallet = Wallet.createRandom();
    const out: string[] = [];
    const code = await main(
      [command, ...args, "--live", "--dry-run", "--base-url", server.url, "--state", dir],
      {
        stdout: (t) => void out.push(t),
        stderr: () => undefined,
        env: { HLBOT_PRIVATE_KEY: wallet.privateKey },
        isTTY: false,
      },
    );
    expect(code).toBe(0);
    const body = parseJson(out.join("")) as { action: { type: string }; signature: unknown };
    expect(body.signature).toBeDefined();
    expect(server.requests).toEqual([]);
  });
});
