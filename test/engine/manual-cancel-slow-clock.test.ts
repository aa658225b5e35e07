// A manual live twapCancel with nothing to reconcile and no bot config read nothing from the venue
// before it signed, so the venue's clock was unknown and expiresAfter fell back to the local clock: with
// a machine clock 3 minutes slow the emergency cancel was refused "already expired" (a review). It reads
// the mids once now when nothing else was read.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { scheduledStrategies } from "../../src/engine/daemon.js";
import { executeManualAction, manualVenue } from "../../src/engine/manual.js";
import { CronSchedule } from "../../src/engine/schedule.js";
import { oncePass } from "../../src/engine/scheduler.js";
import { privateKeySigner } from "../../src/venue/signing/signer.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";

const MINUTE = 60_000;
let bot: TestBot | undefined;
let dir: string | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it("a manual live twapCancel from a machine 3 minutes slow is not refused as expired", async () => {
  const rebalance = {
    name: "rebalance",
    kind: "twap-rebalance",
    schedule: "0 */4 * * *",
    params: {
      targets: { HYPE: 0.5, USDC: 0.5 },
      quote: "USDC",
      band: 0.05,
      twap: { minutes: 120, randomize: false },
      minOrderUsd: 10,
    },
  };
  bot = await startTestBot({ mode: "live", strategies: [rebalance], fund: { HYPE: "1000", USDC: "5000" } });
  bot.sim.setPrice("@107", "40");
  const once = async () =>
    oncePass(
      bot!.runtime.cycleDeps(await bot!.runtime.facts()),
      scheduledStrategies(bot!.runtime.config.strategies),
      {},
    );
  await once();
  bot.sim.advanceTo(new CronSchedule(rebalance.schedule).next(bot.sim.now())!);
  await once();
  const twap = bot.sim.twaps(bot.address).find((t) => t.status === "activated")!;
  expect(twap).toBeDefined();
  dir = mkdtempSync(join(tmpdir(), "review-manual-"));
  const venue = manualVenue(undefined, {
    network: bot.runtime.config.network,
    baseUrl: (bot.sim as unknown as { url: string }).url,
  });
  try {
    const r = await executeManualAction({
      venue,
      config: undefined,
      call: { type: "twapCancel", params: { asset: twap.pair.assetId, twapId: twap.id } } as never,
      signer: privateKeySigner(bot.key),
      account: bot.address,
      live: true,
      stateDir: dir,
      reason: "hlbot twap cancel",
      note: () => {},
      warn: () => {},
      clock: () => bot!.sim.now() - 3 * MINUTE,
    });
    expect(r.status === "done" && r.outcome.status).toBe("accepted");
  } finally {
    await venue.close();
  }
});
