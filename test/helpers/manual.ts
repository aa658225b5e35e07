// A manual `hlbot twap` placed on a test bot's venue through the manual action path (src/engine/manual.ts),
// journaled in a state folder: the bot's own (as the command does with the bot file's state) or another.
import { expect } from "vitest";
import { executeManualAction, manualVenue } from "../../src/engine/manual.js";
import { privateKeySigner } from "../../src/venue/signing/signer.js";
import type { TestBot } from "./bot.js";

/** A manual HYPE/USDC buy TWAP (`size` HYPE over `minutes`), accepted, journaled in `stateDir`. */
export async function placeManualHypeTwap(
  b: TestBot,
  o: { stateDir?: string; size: string; minutes: number },
): Promise<void> {
  const config = b.runtime.config;
  const stateDir = o.stateDir ?? config.state;
  const venue = manualVenue(config, { network: config.network, baseUrl: b.sim.url });
  try {
    const r = await executeManualAction({
      venue,
      config,
      call: {
        type: "twapOrder",
        params: { asset: 10107, isBuy: true, size: o.size, szDecimals: 2, minutes: o.minutes },
      } as never,
      signer: privateKeySigner(b.key),
      account: b.address,
      live: true,
      stateDir,
      stateFromConfig: stateDir === config.state,
      reason: `hlbot twap buy --coin HYPE --size ${o.size} --minutes ${o.minutes} --live`,
      note: () => {},
      warn: () => {},
      clock: () => b.sim.now(),
    });
    expect(r).toMatchObject({ status: "done", outcome: { status: "accepted" } });
  } finally {
    await venue.close();
  }
}
