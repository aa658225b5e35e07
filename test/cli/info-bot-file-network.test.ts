// A go-live trial: `hlbot info` and `hlbot tx` ignored the bot file and asked testnet by default, so in a
// mainnet bot's folder "is anything still running?" (info twapHistory) got testnet's answer, printed as
// bare JSON. Given neither --network nor --base-url, they now use the bot file's and say so.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { runCli } from "../helpers/cli.js";

let sim: Simulator & { url: string };
const dir = mkdtempSync(join(tmpdir(), "hlbot-info-network-"));
beforeAll(async () => {
  sim = await startSimulator({ clock: "real", rateLimit: false, network: "mainnet" });
});
afterAll(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

it("info uses the bot file's network and baseUrl when given neither, and says so", async () => {
  const bot = join(dir, "bot.yaml");
  writeFileSync(
    bot,
    `network: mainnet\nbaseUrl: ${sim.url}\nstate: ./st\nlimits:\n  maxOrderUsd: 500\n  maxDailyNotionalUsd: 2000\n  maxStakeMovePerDay: 100\n`,
  );
  const env = { HLBOT_CONFIG: bot };
  const r = await runCli(["info", "twapHistory", "--user", "0x0000000000000000000000000000000000000001"], {
    env,
  });
  expect(r.code, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout)).toEqual([]);
  expect(r.stderr).toBe(`hlbot: mainnet at ${sim.url}, as ${bot} says (--network or --base-url to choose)\n`);
  // Told which, the flags win and nothing is said.
  const flagged = await runCli(["info", "spotMeta", "--base-url", sim.url], { env });
  expect(flagged.code).toBe(0);
  expect(flagged.stderr).toBe("");
}, 30_000);

it("info and tx refuse a bot file that does not load instead of asking the default network", async () => {
  // A newcomer's mainnet bot file with an unset ${HLBOT_ACCOUNT}: `info` quietly asked testnet (an
  // empty account), `tx` said a mainnet hash was unknown.
  const bot = join(dir, "broken.yaml");
  writeFileSync(
    bot,
    `network: mainnet\nbaseUrl: ${sim.url}\naccount: \${HLBOT_TEST_UNSET_ACCOUNT}\nstate: ./st2\nlimits:\n  maxOrderUsd: 500\n  maxDailyNotionalUsd: 2000\n  maxStakeMovePerDay: 100\n`,
  );
  const env = { HLBOT_CONFIG: bot };
  const user = "0x0000000000000000000000000000000000000001";
  const info = await runCli(["info", "spotClearinghouseState", "--user", user], { env });
  expect(info.code).toBe(2);
  expect(info.stdout).toBe("");
  expect(info.stderr).toMatch(
    /broken\.yaml:3: account: environment variable HLBOT_TEST_UNSET_ACCOUNT is not set/,
  );
  expect(info.stderr).toMatch(
    /reads its network from .*broken\.yaml, which does not load: fix it, or give --network or --base-url/,
  );
  expect(info.stderr).not.toMatch(/testnet/);
  const tx = await runCli(["tx", `0x${"ab".repeat(32)}`], { env });
  expect(tx.code).toBe(2);
  expect(tx.stderr).toMatch(/which does not load/);
  // Told which network, the file is not needed.
  const flagged = await runCli(["info", "spotClearinghouseState", "--user", user, "--base-url", sim.url], {
    env,
  });
  expect(flagged.code, flagged.stderr).toBe(0);
}, 30_000);
