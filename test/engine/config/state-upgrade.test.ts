// An upgrade trial. Before 2026-11-25 a bot file without `state:` kept its state (journal, nonces, the
// kill switch's STOP) in ./state beside the bot file; hlbot now defaults to $XDG_STATE_HOME/hlbot. An
// upgraded bot started on an empty journal there and ignored a kill switch the old version had engaged
// (it traded). And a state database written by a newer hlbot was opened by an older one without a word.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/engine/config/loader.js";
import { configWarnings } from "../../../src/engine/config/warnings.js";
import { JOURNAL_MIGRATIONS } from "../../../src/engine/journal.js";
import { ConfigError } from "../../../src/lib/errors.js";
import { openStateDb } from "../../../src/lib/stateDb.js";
import { NONCE_MIGRATIONS } from "../../../src/venue/nonces.js";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function botDir(state?: string): string {
  dir = mkdtempSync(join(tmpdir(), "hlbot-upgrade-"));
  mkdirSync(join(dir, "strategies"));
  writeFileSync(
    join(dir, "strategies", "dca.yaml"),
    'name: dca\nkind: twap-accumulate\nschedule: "0 9 * * *"\nparams: {coin: PURR, side: buy, amountUsd: 150, twap: {minutes: 60}}\n',
  );
  writeFileSync(
    join(dir, "bot.yaml"),
    `network: testnet\nmode: live\nstrategies: ./strategies\n${state === undefined ? "" : `state: ${state}\n`}limits: {maxOrderUsd: 1000, maxDailyNotionalUsd: 5000, maxStakeMovePerDay: 100}\n`,
  );
  return dir;
}

describe("a bot file without state: beside the state folder of an earlier version", () => {
  const env = () => ({ XDG_STATE_HOME: join(dir, "xdg"), HOME: join(dir, "home") });

  for (const left of [["STOP"], ["hlbot.db", "STOP"]]) {
    it(`is refused while ./state holds an engaged kill switch (${left.join(" and ")}), naming both folders`, async () => {
      botDir();
      mkdirSync(join(dir, "state"));
      for (const f of left) writeFileSync(join(dir, "state", f), "");
      const err = await loadConfig(join(dir, "bot.yaml"), env()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConfigError);
      const text = String((err as Error).message);
      expect(text).toContain(join(dir, "state"));
      expect(text).toContain(join(dir, "xdg", "hlbot"));
      expect(text).toContain("Set `state: ./state`");
    });
  }

  it("is warned of while ./state holds a journal only (it may be another bot file's of the same folder)", async () => {
    botDir();
    mkdirSync(join(dir, "state"));
    writeFileSync(join(dir, "state", "hlbot.db"), "");
    const config = await loadConfig(join(dir, "bot.yaml"), env());
    expect(config.state).toBe(join(dir, "xdg", "hlbot"));
    expect(configWarnings(config).join("\n")).toMatch(
      /no `state:` is set, so the state folder is .*xdg\/hlbot; .*\/state beside the bot file holds a journal/,
    );
  });

  it("loads once the file says which folder it means, and without an old folder", async () => {
    botDir("./state");
    mkdirSync(join(dir, "state"));
    writeFileSync(join(dir, "state", "STOP"), "");
    const config = await loadConfig(join(dir, "bot.yaml"), env());
    expect(config.state).toBe(join(dir, "state"));
    expect(config.limits.killSwitchFile).toBe(join(dir, "state", "STOP"));
    rmSync(dir, { recursive: true, force: true });
    botDir();
    expect((await loadConfig(join(dir, "bot.yaml"), env())).state).toBe(join(dir, "xdg", "hlbot"));
  });
});

it("a state database written by a newer hlbot (a migration this version does not know) is refused", async () => {
  dir = mkdtempSync(join(tmpdir(), "hlbot-downgrade-"));
  const migrations = [...NONCE_MIGRATIONS, ...JOURNAL_MIGRATIONS];
  const db = await openStateDb({ dir, migrations });
  db.prepare("INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)").run(
    "journal-099-from-the-future",
    Date.now(),
  );
  db.close();
  await expect(openStateDb({ dir, migrations })).rejects.toThrow(
    /written by a newer version of hlbot \(it has journal-099-from-the-future/,
  );
  // Another module's ids are not this list's business: the nonce store alone still opens.
  const nonces = await openStateDb({ dir, migrations: NONCE_MIGRATIONS });
  nonces.close();
});

it("a folder this version claimed for an account is refused by a version from before the claim (a migration)", async () => {
  // An upgrade trial: the owner table was made outside the migrations, so an older hlbot saw nothing
  // new and let a bot of another account share the folder, and its kill switch, again.
  dir = mkdtempSync(join(tmpdir(), "hlbot-owner-downgrade-"));
  const now = [...NONCE_MIGRATIONS, ...JOURNAL_MIGRATIONS];
  expect(JOURNAL_MIGRATIONS.at(-1)?.id).toBe("journal-012-state-owner");
  const db = await openStateDb({ dir, migrations: now });
  expect(
    db
      .prepare(
        "SELECT name FROM sqlite_master WHERE name IN ('state_account', 'state_network') ORDER BY name",
      )
      .all(),
  ).toEqual([{ name: "state_account" }, { name: "state_network" }]);
  db.close();
  const before = now.filter((m) => m.id !== "journal-012-state-owner");
  await expect(openStateDb({ dir, migrations: before })).rejects.toThrow(
    /written by a newer version of hlbot \(it has journal-012-state-owner/,
  );
});
