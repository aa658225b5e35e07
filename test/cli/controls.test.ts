// Manual actions go through the engine and the kill switch holds for them (issue #12, case 6): the CLI
// in-process against the embedded simulator on 127.0.0.1 (real clock), with a real bot config and
// state folder. Manual actions are journaled (trigger "manual", the command as the reason), counted in
// the daily limits, refused by the kill switch (twap-cancel excepted), and an unknown outcome is
// reconciled before the next one; `hlbot stop --cancel-twaps` cancels running TWAPs, `resume` releases.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Wallet } from "ethers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { main } from "../../src/cli/main.js";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { cliWithKey, writeManualBotFile } from "../helpers/manualBot.js";
import { demoWithHypeAt } from "../helpers/scenario.js";

let sim: Simulator & { url: string };
let dir: string;
let wallet: ReturnType<typeof Wallet.createRandom>;
let address: string;

beforeEach(async () => {
  // HYPE at 40 since before the start: a price set by hand now would be a 60% day move the price
  // checks refuse (test/helpers/scenario.ts).
  sim = await startSimulator({ clock: "real", rateLimit: false, scenario: demoWithHypeAt("40") });
  dir = mkdtempSync(join(tmpdir(), "hlbot-controls-"));
  wallet = Wallet.createRandom();
  address = wallet.address.toLowerCase();
  sim.fund(address, "HYPE", "100");
  sim.fund(address, "USDC", "5000");
});
afterEach(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

const writeConfig = (limits: Record<string, unknown> = {}, mode: "live" | "dry-run" = "live") =>
  writeManualBotFile(dir, {
    baseUrl: sim.url,
    mode,
    limits: { maxOrderUsd: 1000, maxDailyNotionalUsd: 5000, maxStakeMovePerDay: 5, ...limits },
  });

const cli = (args: string[]) => cliWithKey(wallet.privateKey, args);

function journal() {
  const db = new Database(join(dir, "state", "hlbot.db"), { readonly: true });
  try {
    return {
      cycles: db.prepare("SELECT trigger, mode, strategies FROM cycles ORDER BY rowid").all() as Array<{
        trigger: string;
        mode: string;
      }>,
      decisions: db
        .prepare(
          "SELECT strategy, kind, reason, guard, guard_reason AS guardReason FROM decisions ORDER BY id",
        )
        .all() as Array<{
        strategy: string;
        kind: string;
        reason: string;
        guard: string;
        guardReason: string | null;
      }>,
      submissions: db
        .prepare(
          "SELECT strategy, action_type AS actionType, status, stake_move AS stakeMove FROM submissions ORDER BY id",
        )
        .all() as Array<{
        strategy: string;
        actionType: string;
        status: string;
        stakeMove: string | null;
      }>,
    };
  } finally {
    db.close();
  }
}

const ledger = (kind: string) => sim.ledger().filter((e) => e.kind === kind && e.user === address);

describe("manual actions through the engine", () => {
  it("are journaled with the command as the reason and counted in maxStakeMovePerDay", async () => {
    const config = writeConfig();
    expect((await cli(["stake", "--amount", "20", "--live", "--config", config])).code).toBe(0);
    const first = await cli(["unstake", "--amount", "3", "--live", "--config", config]);
    expect(first.code, first.stderr).toBe(0);
    // 3 + 3 > 5 HYPE a day: refused before signing, with the limit named, nothing sent.
    const second = await cli(["unstake", "--amount", "3", "--live", "--config", config]);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(
      /refused, nothing sent: above maxStakeMovePerDay 5 HYPE for the last 24 h \(2 HYPE left today\); a manual action is never resized/,
    );
    // Not the strategies' wording: nothing is reduced and nothing "moves later".
    expect(second.stderr).not.toMatch(/reduced from|moves later/);
    expect(ledger("withdrawalInitiated")).toHaveLength(1);

    const j = journal();
    expect(j.cycles.map((c) => [c.trigger, c.mode])).toEqual([
      ["manual", "live"],
      ["manual", "live"],
      ["manual", "live"],
    ]);
    expect(j.decisions.map((d) => [d.strategy, d.kind, d.guard])).toEqual([
      ["manual", "cDeposit", "allowed"],
      ["manual", "cWithdraw", "allowed"],
      ["manual", "cWithdraw", "blocked"],
    ]);
    expect(j.decisions[1]?.reason).toMatch(/^hlbot unstake --amount 3 --live --config /);
    expect(j.submissions.map((s) => [s.strategy, s.actionType, s.status, s.stakeMove])).toEqual([
      ["manual", "cDeposit", "accepted", null],
      ["manual", "cWithdraw", "accepted", "3"],
    ]);
  });

  it("a TWAP above maxOrderUsd is refused, not resized; it is valued at the venue's mid", async () => {
    const config = writeConfig({ maxOrderUsd: 100 });
    const run = await cli([
      "twap",
      "buy",
      "--coin",
      "HYPE",
      "--size",
      "5",
      "--minutes",
      "30",
      "--live",
      "--config",
      config,
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /above maxOrderUsd 100 USD \(≈\d+\.\d\d USD\); a manual order is never resized/,
    );
    expect(ledger("twapPlaced")).toHaveLength(0);
  });

  it("an unknown outcome is reconciled against the venue before the next manual action", async () => {
    const config = writeConfig();
    sim.setFaults({ exchange: { dropRate: 1 } });
    const lost = await cli(["stake", "--amount", "2", "--live", "--config", config]);
    expect(lost.code).toBe(1);
    expect(lost.stderr).toMatch(/unknown outcome/);
    expect(journal().submissions.map((s) => s.status)).toEqual(["unknown"]);
    expect(ledger("cDeposit")).toHaveLength(1); // it did land

    sim.setFaults({});
    const next = await cli(["stake", "--amount", "1", "--live", "--config", config]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toMatch(/reconciled submission #1 \(manual, cDeposit\): landed/);
    expect(journal().submissions.map((s) => s.status)).toEqual(["landed", "accepted"]);
    expect(ledger("cDeposit")).toHaveLength(2); // exactly once each
  });
});

describe("manual actions through the engine's executor (#14 §3)", () => {
  it("a live delegate and twap each leave a manual cycle, decision and submission; a dry run leaves nothing", async () => {
    const config = writeConfig();
    const validator = sim.validators()[0]!.address;
    expect((await cli(["stake", "--amount", "4", "--live", "--config", config])).code).toBe(0);
    const delegated = await cli([
      "delegate",
      "--validator",
      validator,
      "--amount",
      "1",
      "--live",
      "--config",
      config,
    ]);
    expect(delegated.code, delegated.stderr).toBe(0);
    const twap = ["twap", "buy", "--coin", "HYPE", "--size", "3", "--minutes", "5", "--config", config];
    const placed = await cli([...twap, "--live"]);
    expect(placed.code, placed.stderr).toBe(0);
    expect(ledger("twapPlaced")).toHaveLength(1);

    const j = journal();
    expect(j.cycles.map((c) => [c.trigger, c.mode])).toEqual([
      ["manual", "live"],
      ["manual", "live"],
      ["manual", "live"],
    ]);
    expect(j.decisions.map((d) => [d.strategy, d.kind, d.guard])).toEqual([
      ["manual", "cDeposit", "allowed"],
      ["manual", "tokenDelegate", "allowed"],
      ["manual", "twapOrder", "allowed"],
    ]);
    expect(j.decisions[2]?.reason).toMatch(
      /^hlbot twap buy --size 3 --minutes 5 --coin HYPE --live --config /,
    );
    expect(j.submissions.map((x) => [x.strategy, x.actionType, x.status, x.stakeMove])).toEqual([
      ["manual", "cDeposit", "accepted", null],
      ["manual", "tokenDelegate", "accepted", "1"],
      ["manual", "twapOrder", "accepted", null],
    ]);

    // The same commands without --live: a body on stdout, nothing sent, nothing journaled.
    const actions = ledger("action").length;
    const dry = await cli(twap);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toMatch(/dry run: twapOrder not sent/);
    const dryDelegate = await cli([
      "delegate",
      "--validator",
      validator,
      "--amount",
      "1",
      "--config",
      config,
    ]);
    expect(dryDelegate.code, dryDelegate.stderr).toBe(0);
    expect(ledger("action")).toHaveLength(actions);
    expect(journal().cycles).toHaveLength(3);
  });

  it("a manual action refused by a daily limit used up says to try again later, not that a slot stays due", async () => {
    // A staker's `hlbot undelegate` after the bot's busy day: "…less than 1 HYPE left); the slot stays
    // due": a manual command has no slot.
    const config = writeConfig({ maxStakeMovePerDay: 5 });
    expect((await cli(["stake", "--amount", "10", "--live", "--config", config])).code).toBe(0);
    expect((await cli(["unstake", "--amount", "5", "--live", "--config", config])).code).toBe(0);
    const run = await cli(["unstake", "--amount", "1", "--live", "--config", config]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /refused, nothing sent: .*above maxStakeMovePerDay 5 \(5 used; less than 1 HYPE left\)/,
    );
    expect(run.stderr).toMatch(/try again once what it counts leaves the 24-h window/);
    expect(run.stderr).not.toMatch(/slot/);
    // With --json the refusal is a JSON line on stdout too (it printed nothing there).
    const json = await cli(["unstake", "--amount", "1", "--live", "--json", "--config", config]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      status: "refused",
      action: "cWithdraw",
      sent: false,
      reason: expect.stringMatching(/above maxStakeMovePerDay 5/),
    });
    expect(ledger("withdrawalInitiated").filter((e) => e.data.amount === "1")).toHaveLength(0);
  });

  it("a delegation beyond maxStakeMovePerDay is refused naming the limit, journaled blocked, nothing sent", async () => {
    const config = writeConfig({ maxStakeMovePerDay: 5 });
    expect((await cli(["stake", "--amount", "10", "--live", "--config", config])).code).toBe(0);
    const validator = sim.validators()[0]!.address;
    const run = await cli([
      "delegate",
      "--validator",
      validator,
      "--amount",
      "6",
      "--live",
      "--config",
      config,
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/refused, nothing sent: .*maxStakeMovePerDay 5.*never resized/);
    expect(ledger("delegate")).toHaveLength(0);
    expect(journal().decisions.map((d) => [d.kind, d.guard])).toEqual([
      ["cDeposit", "allowed"],
      ["tokenDelegate", "blocked"],
    ]);
    expect(journal().submissions).toHaveLength(1);
  });

  it("a timeout after the venue applied the action is reconciled as landed, never sent again as new", async () => {
    const config = writeConfig();
    // The venue applies the deposit, then answers after the client gave up (and its resend, too).
    sim.setFaults({ exchange: { latencyMs: 1_500 } });
    const lost = await cli(["stake", "--amount", "2", "--live", "--timeout", "300", "--config", config]);
    expect(lost.code).toBe(1);
    expect(lost.stderr).toMatch(/unknown outcome/);
    expect(journal().submissions.map((x) => x.status)).toEqual(["unknown"]);
    expect(ledger("cDeposit")).toHaveLength(1);

    sim.setFaults({});
    const next = await cli(["stake", "--amount", "1", "--live", "--config", config]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toMatch(/reconciled submission #1 \(manual, cDeposit\): landed/);
    expect(journal().submissions.map((x) => x.status)).toEqual(["landed", "accepted"]);
    expect(ledger("cDeposit")).toHaveLength(2); // exactly once each
  });

  it("with a bot config, a live action refuses a state folder whose journal was lost, as the bot does", async () => {
    const config = writeConfig();
    expect((await cli(["stake", "--amount", "1", "--live", "--config", config])).code).toBe(0);
    const db = join(dir, "state", "hlbot.db");
    for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
    const refused = await cli(["stake", "--amount", "1", "--live", "--config", config]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/deleted, truncated or replaced.*hlbot journal rebuild/);
    expect(ledger("cDeposit")).toHaveLength(1);
  });
});

describe("the kill switch", () => {
  it("stop names the hlbot holding the state folder, or says none does; without a bot file it warns which switch it used", async () => {
    const config = writeConfig();
    const state = join(dir, "state");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(state, { recursive: true });
    const idle = await cli(["stop", "--config", config]);
    expect(idle.code).toBe(0);
    expect(idle.stderr).toContain(`no hlbot holds the state folder ${state} right now`);
    expect(idle.stderr).toMatch(
      /if your bot runs with another bot file or state folder, this switch does not stop it/,
    );
    expect((await cli(["resume", "--config", config])).code).toBe(0);
    // A switch file shared on purpose (limits.killSwitchFile outside the state folder) stops every bot
    // naming it: "does not stop it" was false (an operator of several bots).
    const shared = join(dir, "shared-STOP");
    const sharing = await cli(["stop", "--config", writeConfig({ killSwitchFile: shared })]);
    expect(sharing.code).toBe(0);
    expect(sharing.stderr).toContain(
      `a bot whose limits.killSwitchFile is ${shared} stops too, whatever its state folder; one with another switch file does not`,
    );
    expect(sharing.stderr).not.toMatch(/this switch does not stop it/);
    expect((await cli(["resume", "--config", config])).code).toBe(0);
    rmSync(shared, { force: true });
    writeConfig();
    const { acquireInstanceLock } = await import("../../src/engine/lock.js");
    const lock = acquireInstanceLock(state, "hlbot run");
    try {
      const held = await cli(["stop", "--config", config]);
      expect(held.stderr).toMatch(
        /`hlbot run` \(pid \d+ on \S+\) holds .* and reads this switch before each cycle/,
      );
    } finally {
      lock.release();
    }
    // No --config, no $HLBOT_CONFIG, no ./hlbot.yaml or ~/.config/hlbot/config.yaml: the fallback's switch,
    // said loudly (a daemon run with --config /etc/hlbot/bot.yaml never reads it).
    const env = { XDG_STATE_HOME: join(dir, "xdg"), XDG_CONFIG_HOME: join(dir, "cfg"), HOME: dir };
    const run = async (args: string[]) => {
      const err: string[] = [];
      const code = await main(args, { stdout: () => {}, stderr: (t) => void err.push(t), env, isTTY: false });
      return { code, stderr: err.join("") };
    };
    const fallback = await run(["stop"]);
    expect(fallback.code).toBe(0);
    expect(fallback.stderr).toMatch(
      /WARNING: no bot file named or found .*: using \S*default\.yaml, whose kill switch is .*xdg\/hlbot\/STOP\. A bot started with another file/,
    );
    expect((await run(["resume"])).stderr).toMatch(/WARNING: no bot file named or found/);
  });

  it("stop blocks manual actions (but not twap-cancel); resume releases it", async () => {
    const config = writeConfig();
    const placed = await cli([
      "twap",
      "sell",
      "--coin",
      "HYPE",
      "--size",
      "20",
      "--minutes",
      "5",
      "--live",
      "--config",
      config,
      "--json",
    ]);
    expect(placed.code, placed.stdout).toBe(0);
    const twapId = (JSON.parse(placed.stdout) as { data: { twapId: number } }).data.twapId;

    const stop = await cli(["stop", "--config", config, "--reason", "maintenance"]);
    expect(stop.code).toBe(0);
    expect(stop.stderr).toMatch(/NOT cancelled and keep filling/);
    const file = join(dir, "state", "STOP");
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ reason: "maintenance" });
    // status says the bot is stopped, and why (once too: test/cli/plan-once.test.ts).
    const shown = await cli(["status", "--config", config]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(
      /^Kill switch: engaged since \S+ \(maintenance\): nothing is submitted until `hlbot resume`\n/,
    );
    const shownJson = JSON.parse((await cli(["status", "--config", config, "--json"])).stdout) as {
      killSwitch: string | null;
    };
    expect(shownJson.killSwitch).toMatch(/^engaged since .*\(maintenance\)/);
    // Another account shown with --user is not the bot's to stop.
    const elsewhere = JSON.parse(
      (
        await cli([
          "status",
          "--config",
          config,
          "--json",
          "--user",
          "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
        ])
      ).stdout,
    ) as { killSwitch: string | null };
    expect(elsewhere.killSwitch).toBeNull();
    // The bot's own address given with --user (an operator reading without the key): its switch shows;
    // without the key nor `account:`, whose it is cannot be told, so it shows saying so.
    const mine = JSON.parse(
      (await cli(["status", "--config", config, "--json", "--user", address])).stdout,
    ) as {
      killSwitch: string | null;
    };
    expect(mine.killSwitch).toMatch(
      /^engaged since .*\(maintenance\): nothing is submitted until `hlbot resume`$/,
    );
    const out: string[] = [];
    await main(["status", "--config", config, "--json", "--user", address], {
      stdout: (t) => void out.push(t),
      stderr: () => undefined,
      env: {},
      isTTY: false,
    });
    expect((JSON.parse(out.join("")) as { killSwitch: string | null }).killSwitch).toMatch(
      /^engaged since .*\(maintenance\).* \(the switch of .*bot\.yaml, whose account is not known here\)$/,
    );
    // A key the command line cannot know (one read from a key file or keystore) pasted into the reason
    // is written masked.
    const other = Wallet.createRandom().privateKey;
    const pasted = await cli(["stop", "--config", config, "--reason", `oops ${other} and ${other.slice(2)}`]);
    expect(pasted.code).toBe(0);
    const stored = readFileSync(file, "utf8");
    expect(stored).not.toContain(other.slice(2));
    expect(JSON.parse(stored).reason).toMatch(
      /; again at \S+: oops \[64 hex digits\] and \[64 hex digits\]$/,
    );

    const refused = await cli(["stake", "--amount", "1", "--live", "--config", config]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/refused, nothing sent: kill switch is on/);
    const dry = await cli(["stake", "--amount", "1", "--config", config]);
    expect(dry.code).toBe(1); // a dry run says what live would do
    expect(ledger("cDeposit")).toHaveLength(0);

    const cancel = await cli([
      "twap-cancel",
      "--coin",
      "HYPE",
      "--twap-id",
      String(twapId),
      "--live",
      "--config",
      config,
    ]);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(ledger("twapTerminated")).toHaveLength(1);

    expect((await cli(["resume", "--config", config])).code).toBe(0);
    expect(existsSync(file)).toBe(false);
    const released = JSON.parse((await cli(["status", "--config", config, "--json"])).stdout) as {
      killSwitch: string | null;
    };
    expect(released.killSwitch).toBeNull();
    expect((await cli(["stake", "--amount", "1", "--live", "--config", config])).code).toBe(0);
    expect(ledger("cDeposit")).toHaveLength(1);
  });

  it("a strategy file that does not load does not stop the brakes: stop, status, twap-cancel and stop --cancel-twaps act, with a warning naming it", async () => {
    const config = writeConfig();
    const twap = async () => {
      const placed = await cli(
        ["twap", "buy", "--coin", "HYPE", "--size", "10", "--minutes", "5"].concat([
          "--live",
          "--config",
          config,
          "--json",
        ]),
      );
      expect(placed.code, placed.stderr).toBe(0);
      return (JSON.parse(placed.stdout) as { data: { twapId: number } }).data.twapId;
    };
    const first = await twap();
    // Half-edited: a typo saved while a TWAP runs (the likely moment for an emergency).
    writeFileSync(
      join(dir, "noop.yaml"),
      stringify({
        name: "noop",
        kind: "validator-staking",
        schedule: "0 */6 * * *",
        params: { validators: "three" },
      }),
    );
    const warning =
      /hlbot: warning: \S*noop\.yaml:\d+: params\.validators: .*\(this strategy file does not load and was left out/;
    const stop = await cli(["stop", "--config", config, "--reason", "emergency"]);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stderr).toMatch(warning);
    expect(JSON.parse(readFileSync(join(dir, "state", "STOP"), "utf8"))).toMatchObject({
      reason: "emergency",
    });
    const shown = await cli(["status", "--config", config]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stderr).toMatch(warning);
    expect(shown.stdout).toMatch(/^Kill switch: engaged since/);
    const cancel = await cli([
      "twap-cancel",
      "--coin",
      "HYPE",
      "--twap-id",
      String(first),
      "--live",
      "--config",
      config,
    ]);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(cancel.stderr).toMatch(warning);
    expect(ledger("twapTerminated")).toHaveLength(1);
    // Placed by hand while the switch is off, then cancelled with the switch.
    expect((await cli(["resume", "--config", config])).code).toBe(0);
    await twap();
    const all = await cli(["stop", "--config", config, "--cancel-twaps"]);
    expect(all.code, all.stderr).toBe(0);
    expect(ledger("twapTerminated")).toHaveLength(2);
    // A bot file that does not load itself: the switch its state: line names is engaged all the same
    // (a go-live trial's emergency stop engaged nothing), with a warning; TWAPs are not cancelled.
    expect((await cli(["resume", "--config", config])).code).toBe(0);
    writeFileSync(config, "network: testnet\nmode: live\nstrategies: 7\nstate: ./state\n");
    const broken = await cli(["stop", "--config", config]);
    expect(broken.code, broken.stderr).toBe(0);
    expect(broken.stderr).toMatch(/read from the bot file's state: and limits\.killSwitchFile lines alone/);
    expect(existsSync(join(dir, "state", "STOP"))).toBe(true);
  });

  it("stop --cancel-twaps cancels the account's running TWAPs through the executor, journaled", async () => {
    const config = writeConfig();
    expect(
      (
        await cli([
          "twap",
          "buy",
          "--coin",
          "HYPE",
          "--size",
          "10",
          "--minutes",
          "5",
          "--live",
          "--config",
          config,
        ])
      ).code,
    ).toBe(0);
    const stop = await cli(["stop", "--config", config, "--cancel-twaps"]);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toMatch(/kill-switch: twapCancel \(allowed; sent, accepted\): kill switch engaged/);
    expect(ledger("twapTerminated")).toHaveLength(1);
    const j = journal();
    expect(j.cycles.map((c) => c.trigger)).toEqual(["manual", "stop"]);
    expect(j.submissions.map((s) => [s.strategy, s.actionType, s.status])).toEqual([
      ["manual", "twapOrder", "accepted"],
      ["kill-switch", "twapCancel", "accepted"],
    ]);
    // The switch stays engaged: the next once places nothing.
    expect(existsSync(join(dir, "state", "STOP"))).toBe(true);
  });

  it("stop --cancel-twaps under a dry-run config says the TWAPs keep filling; with --live it cancels them", async () => {
    // A TWAP placed by hand with --live runs whatever the bot file's mode (a newcomer's emergency stop
    // showed the cancel as "dry run, not sent", exit 0, and the TWAP kept filling).
    const config = writeConfig({}, "dry-run");
    const placed = await cli([
      "twap",
      "sell",
      "--coin",
      "HYPE",
      "--size",
      "5",
      "--minutes",
      "30",
      "--live",
      "--config",
      config,
    ]);
    expect(placed.code, placed.stderr).toBe(0);
    const shown = await cli(["stop", "--config", config, "--cancel-twaps"]);
    // Asked for and not sent: exit 1, so `hlbot stop --cancel-twaps && …` does not read it as done.
    expect(shown.code, shown.stderr).toBe(1);
    expect(shown.stdout).toMatch(/kill-switch: twapCancel \(allowed; dry run, not sent\)/);
    expect(shown.stderr).toMatch(
      /the running TWAPs above are NOT cancelled and keep filling \(.* says mode: dry-run\): cancel them with `hlbot stop --cancel-twaps --live`/,
    );
    expect(ledger("twapTerminated")).toHaveLength(0);
    const sent = await cli(["stop", "--config", config, "--cancel-twaps", "--live"]);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toMatch(/kill-switch: twapCancel \(allowed; sent, accepted\)/);
    expect(ledger("twapTerminated")).toHaveLength(1);
    expect((await cli(["stop", "--config", config, "--live", "--dry-run"])).code).toBe(2);
  });

  it("manual actions with no bot config: journaled in the state folder, <state>/STOP still refuses them", async () => {
    const state = join(dir, "bare");
    const args = ["stake", "--amount", "1", "--live", "--base-url", sim.url, "--state", state];
    const ok = await cli(args);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(/no bot config .* not applied/);
    writeFileSync(join(state, "STOP"), "");
    const refused = await cli(args);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/kill switch is on/);
    expect(ledger("cDeposit")).toHaveLength(1);
  });
});
