// A go-live trial: `hlbot stop` loaded and validated the whole bot file before touching the kill switch,
// so a variable only the daemon's environment sets (`account: ${BOT_ACCOUNT}` from systemd's
// EnvironmentFile) or a typo saved while the daemon ran on the file it had loaded made the emergency stop
// exit 2 with nothing engaged. It now engages the switch the file's state: / killSwitchFile lines name.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "hlbot-stop-broken-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LIMITS = "limits:\n  maxOrderUsd: 500\n  maxDailyNotionalUsd: 2000\n  maxStakeMovePerDay: 100\n";

it.each([
  ["a variable the shell does not set", `network: mainnet\naccount: \${BOT_ACCOUNT}\nstate: ./st1\n`, "st1"],
  [
    "a typo in a limit",
    "network: mainnet\nstate: ./st2\nlimits:\n  maxOrderUsd: 5,00\n  maxDailyNotionalUsd: 2000\n  maxStakeMovePerDay: 100\n",
    "st2",
  ],
])("hlbot stop engages the switch when the bot file does not load (%s)", async (_what, text, state) => {
  const bot = join(dir, `${state}.yaml`);
  writeFileSync(bot, text.includes("limits:") ? text : `${text}${LIMITS}`);
  const r = await runCli(["stop", "--config", bot, "--reason", "emergency"], { env: {} });
  expect(r.code, r.stderr).toBe(0);
  const stop = join(dir, state, "STOP");
  expect(existsSync(stop)).toBe(true);
  expect(readFileSync(stop, "utf8")).toContain("emergency");
  expect(r.stderr).toMatch(
    /hlbot: warning: .*\nhlbot: kill switch engaged: .*STOP exists \(read from the bot file's state: and limits\.killSwitchFile lines alone/,
  );
  expect(r.stderr).toMatch(/running TWAPs are NOT cancelled/);
});

it("says how to engage it by hand when even the state folder cannot be read, and engages nothing", async () => {
  const bot = join(dir, "unknown-state.yaml");
  writeFileSync(bot, `network: mainnet\nstate: \${STATE_DIR}\n${LIMITS}`);
  const r = await runCli(["stop", "--config", bot], { env: {} });
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(
    /the kill switch was NOT engaged: the bot file does not load, and state uses \$\{STATE_DIR\}, which is not set here\. Engage it by hand: `touch <state folder>\/STOP`/,
  );
});

it("hlbot resume refuses with a file that does not load, and says the switch stays engaged and where", async () => {
  // A docs trial: only the file's error was printed, nothing of the switch still engaged.
  const bot = join(dir, "resume.yaml");
  writeFileSync(bot, `network: mainnet\naccount: \${BOT_ACCOUNT}\nstate: ./st3\n${LIMITS}`);
  expect((await runCli(["stop", "--config", bot], { env: {} })).code).toBe(0);
  const r = await runCli(["resume", "--config", bot], { env: {} });
  expect(r.code).toBe(2);
  const stop = join(dir, "st3", "STOP");
  expect(existsSync(stop)).toBe(true);
  expect(r.stderr).toContain(
    `the kill switch at ${stop} stays engaged: fix the bot file and run \`hlbot resume\` again`,
  );
});
