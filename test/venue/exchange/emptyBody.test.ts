// An empty 200 body to an exchange action is not the venue's answer (it answers
// {"status":"ok","response":{"type":"default"}}): the outcome is unknown, never accepted. Against
// scripted 127.0.0.1 servers, and end to end through a 127.0.0.1 proxy in front of the simulator
// that blanks the venue's answer: the cycle journals "unknown" and the next one reconciles it.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { runCycle } from "../../../src/engine/cycle.js";
import { REBALANCE, startTestBot, type TestBot } from "../../helpers/bot.js";
import { type Cleanup, liveSetup, OK_DEFAULT, VALIDATOR } from "../../helpers/exchange.js";

const cleanups: Cleanup[] = [];
let bot: TestBot | undefined;
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
  await bot?.close();
  bot = undefined;
});

const TWAP = { asset: 10107, isBuy: true, size: "12.5", szDecimals: 2, minutes: 30 } as const;

describe("an empty 200 body to an exchange action", () => {
  it("is unknown for a user-signed action, after identical resends, never accepted", async () => {
    const { client, server } = await liveSetup(cleanups, [{ text: "" }]);
    const outcome = await client.tokenDelegate({ validator: VALIDATOR, amount: "1", isUndelegate: false });
    expect(outcome.status).toBe("unknown");
    if (outcome.status !== "unknown") return;
    expect(server.requests.length).toBeGreaterThan(1);
    expect(new Set(server.requests.map((r) => r.body)).size).toBe(1);
    expect(
      outcome.attempts.every((a) => a.result === "bad-response" && a.detail?.includes("empty body")),
    ).toBe(true);
  });

  it("is unknown for a TWAP order too; a resend answered 'duplicate nonce' says it probably landed", async () => {
    const { client } = await liveSetup(cleanups, (request, index) =>
      index === 0
        ? { text: "" }
        : {
            json: {
              status: "err",
              response: `Invalid nonce: duplicate nonce ${(request.json as { nonce: number }).nonce}`,
            },
          },
    );
    const outcome = await client.twapOrder(TWAP);
    expect(outcome).toMatchObject({ status: "unknown", probablyLanded: true });
  });

  it("an empty body then the venue's own answer to the resend: that answer decides", async () => {
    const { client } = await liveSetup(cleanups, [{ text: "" }, { json: OK_DEFAULT }]);
    const outcome = await client.cDeposit({ amount: "1" });
    expect(outcome.status).toBe("accepted");
    if (outcome.status !== "accepted") return;
    expect(outcome.attempts.map((a) => a.result)).toEqual(["bad-response", "accepted"]);
  });

  it("in a cycle: journaled unknown, then reconciled against the venue, with no second action", async () => {
    // A proxy on 127.0.0.1 that forwards to the simulator and blanks the first /exchange answer.
    let target = "";
    let blanked = 0;
    const proxy: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", async () => {
        const upstream = await fetch(`${target}${req.url}`, {
          method: req.method,
          headers: { "content-type": "application/json" },
          body: Buffer.concat(chunks),
        });
        const text = await upstream.text();
        const blank = req.url === "/exchange" && blanked++ === 0;
        // The venue's own Date header: it is the venue's clock the bot compares its own with (the
        // proxy's would be this machine's, a year from the simulator's, and hold every strategy).
        res.writeHead(upstream.status, {
          "content-type": "application/json",
          ...(upstream.headers.get("date") ? { date: upstream.headers.get("date")! } : {}),
        });
        res.end(blank ? "" : text);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

    bot = await startTestBot({
      mode: "live",
      strategies: [REBALANCE],
      fund: { HYPE: "1000", USDC: "5000" },
      configExtra: { baseUrl: proxyUrl },
      beforeOpen: (sim) => {
        target = sim.url ?? "";
      },
    });
    bot.sim.setPrice("@107", "40");
    const cycle = async () =>
      runCycle(bot!.runtime.cycleDeps(await bot!.runtime.facts()), {
        trigger: "once",
        strategies: bot!.runtime.strategies(),
      });
    const placed = () => bot!.sim.ledger().filter((e) => e.kind === "twapPlaced" && e.user === bot!.address);

    const first = await cycle();
    expect(first.actions.map((a) => a.outcome)).toEqual(["unknown"]);
    expect(placed()).toHaveLength(1);
    expect(bot.runtime.journal.unresolved(bot.address)).toHaveLength(1);

    bot.sim.advance(60_000);
    const second = await cycle();
    expect(second.reconciled.map((r) => r.verdict)).toEqual(["landed"]);
    expect(second.actions).toHaveLength(0);
    expect(placed()).toHaveLength(1);
  });
});
