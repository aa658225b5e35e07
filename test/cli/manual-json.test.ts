// A scripter's trial of manual actions under --json: stdout carries exactly one JSON line whatever
// happens, and stderr keeps every note (a live TWAP with no bot file found said nothing of "limits are
// not applied" under --json; an unreachable venue printed nothing on stdout for `twap`).
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { runCli } from "../helpers/cli.js";

let sim: Simulator & { url: string };
const dir = mkdtempSync(join(tmpdir(), "hlbot-manual-json-"));
const wallet = Wallet.createRandom();
const env = { HLBOT_PRIVATE_KEY: wallet.privateKey };
beforeAll(async () => {
  sim = await startSimulator({ clock: "real", rateLimit: false });
  sim.fund(wallet.address.toLowerCase(), "USDC", "5000");
  sim.setPrice("@107", "25");
});
afterAll(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A port on 127.0.0.1 where nothing listens (taken, then released). */
async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const lines = (stdout: string) => stdout.split("\n").filter((l) => l.length > 0);

describe("manual actions with --json", () => {
  it("a live TWAP with no bot file: stderr still says the limits are not applied", async () => {
    const run = await runCli(
      ["twap", "buy", "--coin", "HYPE", "--size", "4.129", "--minutes", "5", "--live", "--json"].concat([
        "--base-url",
        sim.url,
        "--state",
        join(dir, "a"),
      ]),
      { env, cwd: dir },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(lines(run.stdout)).toHaveLength(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: "accepted", action: "twapOrder" });
    expect(run.stderr).toMatch(
      /no bot config .*: maxOrderUsd, maxDailyNotionalUsd and maxStakeMovePerDay are not applied/,
    );
    expect(run.stderr).toMatch(/size 4\.129 truncated to 4\.12/);
  });

  it("an unreachable venue: one not-sent line on stdout for every command, exit 1", async () => {
    const url = `http://127.0.0.1:${await deadPort()}`;
    const commands = [
      ["twap", "buy", "--coin", "HYPE", "--size", "5", "--minutes", "5"],
      ["twap-cancel", "--coin", "HYPE", "--twap-id", "5"],
      ["stake", "--amount", "1"],
    ];
    for (const args of commands) {
      const run = await runCli(
        [...args, "--live", "--json", "--timeout", "1000", "--base-url", url, "--state", join(dir, "b")],
        { env, cwd: dir },
      );
      expect(run.code, `${args[0]}: ${run.stderr}`).toBe(1);
      expect(lines(run.stdout), args[0]).toHaveLength(1);
      const line = JSON.parse(run.stdout) as Record<string, unknown>;
      expect(line.sent, args[0]).toBe(false);
      expect(["not-sent", "refused", "rejected"]).toContain(line.status);
      expect(String(line.reason ?? ""), args[0]).not.toBe("");
    }
    // The twap's (it failed reading spotMeta for --coin) names its kind of failure.
    const twap = await runCli(
      ["twap", "buy", "--coin", "HYPE", "--size", "5", "--minutes", "5", "--live", "--json"].concat([
        "--timeout",
        "1000",
        "--base-url",
        url,
        "--state",
        join(dir, "b"),
      ]),
      { env, cwd: dir },
    );
    expect(JSON.parse(twap.stdout)).toMatchObject({
      status: "not-sent",
      command: "twap",
      sent: false,
      code: "unreachable",
    });
  });

  it("bad input under --json: a not-sent line with code input, exit 2", async () => {
    const run = await runCli(
      ["twap", "buy", "--coin", "HYPE", "--size", "0.5", "--minutes", "5", "--live", "--json"].concat([
        "--base-url",
        sim.url,
        "--state",
        join(dir, "c"),
      ]),
      { env, cwd: dir },
    );
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: "not-sent", sent: false, code: "input" });
    expect(JSON.parse(run.stdout).reason).toMatch(/the venue refuses a TWAP worth less than 100 USDC/);
  });
});
