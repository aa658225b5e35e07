// An operator's trial: a cDeposit whose answers were slow was sent 4 times in 33 s (the identical signed
// request, same nonce: safe), and the daemon's log said only the final "unknown"; the attempts were in
// the journal's attempts table alone. Each resend is now said at warn.
import { afterEach, expect, it } from "vitest";
import { runDueSlots, Scheduler } from "../../src/engine/scheduler.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";
import { captureLogger } from "../helpers/logs.js";

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

it("each resend of a money-moving request is logged with what the attempt met", async () => {
  const { logger, lines } = captureLogger();
  bot = await startTestBot({
    mode: "live",
    logger,
    strategies: [
      {
        name: "dca",
        kind: "twap-accumulate",
        schedule: "* * * * *",
        params: {
          coin: "HYPE",
          quote: "USDC",
          side: "buy",
          amountUsd: 250,
          twap: { minutes: 30, randomize: false },
        },
      },
    ],
    fund: { USDC: "20000" },
  });
  bot.sim.setPrice("@107", "25");
  const scheduler = new Scheduler({
    journal: bot.runtime.journal,
    account: bot.address,
    mode: "live",
    strategies: bot.runtime.strategies(),
  });
  scheduler.register(bot.sim.now() - 60_000);
  // Every answer of the exchange is lost: the venue applies the order, the bot hears nothing.
  bot.sim.setFaults({ exchange: { dropRate: 1 } });
  const r = await runDueSlots(scheduler, bot.runtime.cycleDeps(await bot.runtime.facts()), {
    trigger: "run",
  });
  bot.sim.setFaults({});
  expect(r.runs.flatMap((x) => x.report?.actions.map((a) => a.outcome) ?? [])).toEqual(["unknown"]);
  const { n: attempts } = bot.runtime.db.prepare("SELECT COUNT(*) AS n FROM attempts").get() as { n: number };
  expect(attempts).toBeGreaterThan(1);
  const resent = lines.filter((l) =>
    /^twapOrder of dca resent \(attempt \d+: the identical signed request/.test(l.msg),
  );
  expect(resent.length).toBeGreaterThan(0);
  expect(resent.every((l) => l.level === 40)).toBe(true);
  expect(resent).toHaveLength(attempts - 1);
  // Landed once, whatever the resends.
  expect(bot.sim.ledger().filter((e) => e.kind === "twapPlaced" && e.user === bot!.address)).toHaveLength(1);
});
