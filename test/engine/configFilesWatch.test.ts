// The watch of the bot file and its strategy files while `hlbot run` runs (an owner's edit trial: edits
// on disk did not run, and nothing said so until a SIGHUP), on real files in a temp folder.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { strategyFilesIn } from "../../src/engine/config/loader.js";
import { ConfigFilesWatch } from "../../src/engine/configFilesWatch.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Writes a file and moves its modification time on, as an editor saving it a little later would. */
function edit(path: string, text: string, secondsLater: number): void {
  writeFileSync(path, text);
  const t = new Date(Date.now() + secondsLater * 1000);
  utimesSync(path, t, t);
}

function rig() {
  dir = mkdtempSync(join(tmpdir(), "hlbot-files-"));
  const folder = join(dir, "strategies");
  const botFile = join(dir, "hlbot.yaml");
  writeFileSync(botFile, "network: testnet\nstrategies: strategies\n");
  mkdirSync(folder);
  writeFileSync(join(folder, "dca.yaml"), "name: dca\n");
  const warnings: Array<{ fields: unknown; msg: string }> = [];
  const logger = { warn: (fields: unknown, msg: string) => warnings.push({ fields, msg }) };
  const watch = new ConfigFilesWatch({
    botFile,
    strategyFiles: () => strategyFilesIn(folder),
    logger: logger as never,
    pid: 4242,
  });
  return { watch, warnings, botFile, folder };
}

describe("ConfigFilesWatch", () => {
  it("says once per edit that a strategy file on disk is not what runs, and how to apply it", async () => {
    const { watch, warnings, folder } = rig();
    await watch.baseline();
    expect(await watch.check()).toEqual([]);
    edit(join(folder, "dca.yaml"), "name: dca\nenabled: false\n", 5);
    expect(await watch.check()).toEqual([join(folder, "dca.yaml")]);
    expect(await watch.check()).toHaveLength(1); // still changed, not said again
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toMatch(
      /dca\.yaml edited on disk since this daemon read it: it still runs what it read; SIGHUP \(kill -HUP 4242\) applies the strategy files/,
    );
    expect(warnings[0]!.msg).not.toMatch(/restart/);
    // A second edit of the same file is a new edit: said again.
    edit(join(folder, "dca.yaml"), "name: dca\nenabled: true\n", 10);
    await watch.check();
    expect(warnings).toHaveLength(2);
    // After a SIGHUP read the files, nothing is pending.
    await watch.baseline();
    expect(await watch.check()).toEqual([]);
    expect(warnings).toHaveLength(2);
  });

  it("names a strategy file added to or removed from the folder, and says the bot file's settings need a restart", async () => {
    const { watch, warnings, folder, botFile } = rig();
    await watch.baseline();
    writeFileSync(join(folder, "sell.yaml"), "name: sell\n");
    expect(await watch.check()).toEqual([join(folder, "sell.yaml")]);
    rmSync(join(folder, "dca.yaml"));
    await watch.baseline();
    writeFileSync(join(folder, "dca.yaml"), "name: dca\n");
    rmSync(join(folder, "sell.yaml"));
    expect((await watch.check()).sort()).toEqual(
      [join(folder, "dca.yaml"), join(folder, "sell.yaml")].sort(),
    );
    edit(botFile, "network: testnet\nstrategies: strategies\nmode: dry-run\n", 5);
    await watch.baseline();
    edit(botFile, "network: testnet\nstrategies: strategies\nmode: live\n", 10);
    expect(await watch.check()).toEqual([botFile]);
    expect(warnings.at(-1)!.msg).toMatch(
      /hlbot\.yaml edited on disk .*; mode, limits and the bot file's other settings take effect only at a restart/,
    );
  });

  it("an edit made while a start or a SIGHUP was still reading is said (the baseline is what was read)", async () => {
    // A review: the baseline was taken after the reload's venue round trip, so an edit in it was taken
    // for what runs and never said.
    const { watch, warnings, folder } = rig();
    const read = await watch.fingerprints(); // the files as the reload reads them
    edit(join(folder, "dca.yaml"), "name: dca\nenabled: false\n", 5); // edited while it asks the venue
    await watch.baseline(read); // the reload applies what it read
    expect(await watch.check()).toEqual([join(folder, "dca.yaml")]);
    expect(warnings).toHaveLength(1);
  });

  it("a file put back as it was is what runs: nothing to say (an SRE's trial, after a refused SIGHUP)", async () => {
    const { watch, warnings, folder } = rig();
    await watch.baseline();
    edit(join(folder, "dca.yaml"), "name: dca\nband: [oops\n", 5);
    expect(await watch.check()).toHaveLength(1);
    edit(join(folder, "dca.yaml"), "name: dca\n", 10); // restored, with a new time
    expect(await watch.check()).toEqual([]);
    expect(warnings).toHaveLength(1);
  });
});
