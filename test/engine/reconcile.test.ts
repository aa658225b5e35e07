// The reconciler against the simulator, one action kind at a time: a submission journaled as pending
// (signed, written, and then sent or not) is settled as landed when the venue shows it and as absent
// once it can no longer land; a row the reconciler cannot read back through its action's wire schema
// (an action it does not know, a request that does not fit) stops it, naming the row, and is never
// declared absent. Real SQLite journal in a temp folder, the simulator over HTTP.
import { afterEach, describe, expect, it } from "vitest";
import type { IntentKind } from "../../src/engine/intentKinds.js";
import { historyRecordKey, INTENT_KINDS } from "../../src/engine/intentKinds.js";
import { reconcile } from "../../src/engine/reconcile.js";
import { StateCorruptError } from "../../src/lib/errors.js";
import { parseJson, stringifyJson } from "../../src/lib/json.js";
import type { ExchangeCall, SignedRequest } from "../../src/venue/exchange/client.js";
import { REBALANCE, startTestBot, type TestBot } from "../helpers/bot.js";

const PAIR = "@107"; // HYPE/USDC in the demo scenario
const ASSET = 10_107;
const VALIDATOR = "0x5ac99df645f3414876c816caa18b2d234024b487"; // Hypurr, not jailed
const PEER = "0x00000000000000000000000000000000000b0b0b";
const CYCLE = "reconcile-test";
const TWO_DAYS = 2 * 24 * 60 * 60_000;

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

async function openBot(): Promise<TestBot> {
  // The strategy is never run here: the tests call the reconciler themselves.
  const b = await startTestBot({
    mode: "live",
    strategies: [REBALANCE],
    fund: { HYPE: "1000", USDC: "5000" },
  });
  b.sim.setPrice(PAIR, "40");
  b.runtime.journal.startCycle({
    id: CYCLE,
    trigger: "once",
    mode: "live",
    account: b.address,
    strategies: [],
  });
  return b;
}

async function szDecimals(b: TestBot): Promise<number> {
  const meta = await b.runtime.info.spotMeta();
  const pair = meta.universe.find((u) => u.name === PAIR)!;
  return meta.tokens.find((t) => t.index === pair.tokens[0])!.szDecimals;
}

/** Prepares the venue for one action of each kind and returns that action's call. */
const SETUPS: Record<IntentKind, (b: TestBot) => Promise<ExchangeCall>> = {
  twapOrder: async (b) => ({
    type: "twapOrder",
    params: { asset: ASSET, isBuy: false, size: "100", szDecimals: await szDecimals(b), minutes: 10 },
  }),
  twapCancel: async (b) => {
    const placed = await b.runtime.exchange!.twapOrder({
      asset: ASSET,
      isBuy: false,
      size: "100",
      szDecimals: await szDecimals(b),
      minutes: 10,
    });
    if (placed.status !== "accepted") throw new Error(`setup: twapOrder ${placed.status}`);
    return { type: "twapCancel", params: { asset: ASSET, twapId: placed.data.twapId } };
  },
  tokenDelegate: async (b) => {
    expect((await b.runtime.exchange!.cDeposit({ amount: "100" })).status).toBe("accepted");
    return { type: "tokenDelegate", params: { validator: VALIDATOR, amount: "10", isUndelegate: false } };
  },
  cDeposit: async () => ({ type: "cDeposit", params: { amount: "10" } }),
  cWithdraw: async (b) => {
    expect((await b.runtime.exchange!.cDeposit({ amount: "100" })).status).toBe("accepted");
    return { type: "cWithdraw", params: { amount: "10" } };
  },
  linkStakingUser: async () => ({ type: "linkStakingUser", params: { user: PEER, isFinalize: false } }),
};

/** Signs a call and journals it as pending, as the executor does before sending. */
async function journalSigned(b: TestBot, call: ExchangeCall, edit?: (body: Record<string, unknown>) => void) {
  const request = await b.runtime.exchange!.sign(call);
  let text = request.bodyText;
  if (edit) {
    const body = parseJson(text) as Record<string, unknown>;
    edit(body);
    text = stringifyJson(body);
  }
  return { id: journalRow(b, request, text), request };
}

function journalRow(
  b: TestBot,
  request: SignedRequest,
  text: string,
  actionType = request.actionType,
): number {
  return b.runtime.journal.recordPending({
    cycleId: CYCLE,
    decisionId: null,
    strategy: "test",
    account: request.account,
    signer: request.signer,
    actionType,
    nonce: request.nonce,
    expiresAfter: request.expiresAfter ?? null,
    vault: null,
    request: text,
  });
}

function reconcileNow(b: TestBot) {
  return reconcile(b.runtime.info, b.runtime.journal, { account: b.address, now: b.sim.now() });
}

/** Past the time a request could still land: its expiry (L1) or the venue's nonce window (user-signed). */
function pastDeadline(b: TestBot, request: SignedRequest): void {
  b.sim.advance(request.expiresAfter !== undefined ? 2 * 60_000 : TWO_DAYS + 60_000);
}

const KINDS = Object.keys(INTENT_KINDS) as IntentKind[];

describe("reconcile, one journaled but unconfirmed submission of each kind", () => {
  it("has a setup for every kind of intent", () => {
    expect(Object.keys(SETUPS).sort()).toEqual([...KINDS].sort());
  });

  it.each(KINDS)("%s sent after it was journaled is reconciled as landed", async (kind) => {
    bot = await openBot();
    const { id, request } = await journalSigned(bot, await SETUPS[kind](bot));
    expect((await bot.runtime.exchange!.send(request)).status).toBe("accepted");
    bot.sim.advance(30_000);
    const [result, ...rest] = await reconcileNow(bot);
    expect(rest).toEqual([]);
    expect(result).toMatchObject({ submissionId: id, actionType: kind, verdict: "landed" });
    expect(bot.runtime.journal.unresolved(bot.address)).toEqual([]);
  });

  it.each(KINDS)("%s never sent is unresolved until it can no longer land, then absent", async (kind) => {
    bot = await openBot();
    const { id, request } = await journalSigned(bot, await SETUPS[kind](bot));
    expect((await reconcileNow(bot)).map((r) => r.verdict)).toEqual(["unresolved"]);
    pastDeadline(bot, request);
    const [result, ...rest] = await reconcileNow(bot);
    expect(rest).toEqual([]);
    expect(result).toMatchObject({ submissionId: id, actionType: kind, verdict: "absent" });
    expect(bot.runtime.journal.unresolved(bot.address)).toEqual([]);
  });
});

describe("reconcile, a journaled submission it cannot read", () => {
  async function expectRefused(b: TestBot, id: number, request: SignedRequest, message: RegExp) {
    const refused = reconcileNow(b);
    await expect(refused).rejects.toBeInstanceOf(StateCorruptError);
    await expect(reconcileNow(b)).rejects.toThrow(message);
    // Never settled by default: past any deadline it is still refused, and still unresolved.
    pastDeadline(b, request);
    await expect(reconcileNow(b)).rejects.toThrow(message);
    expect(b.runtime.journal.unresolved(b.address).map((r) => r.id)).toEqual([id]);
  }

  it("refuses a row of an action type it does not know, naming the row", async () => {
    bot = await openBot();
    const request = await bot.runtime.exchange!.sign({ type: "cDeposit", params: { amount: "1" } });
    const body = parseJson(request.bodyText) as { action: Record<string, unknown> };
    body.action.type = "spotSend";
    const id = journalRow(bot, request, stringifyJson(body), "spotSend");
    await expectRefused(bot, id, request, new RegExp(`#${id} \\(spotSend, .*does not know`));
  });

  it("refuses a row of an exchange action that is no kind of intent (approveAgent)", async () => {
    bot = await openBot();
    const { id, request } = await journalSigned(bot, {
      type: "approveAgent",
      params: { agentAddress: PEER, agentName: "bot" },
    });
    await expectRefused(bot, id, request, new RegExp(`#${id} \\(approveAgent, .*does not know`));
  });

  it("refuses a row whose request does not fit its action's wire schema, naming the field", async () => {
    bot = await openBot();
    const { id, request } = await journalSigned(
      bot,
      { type: "tokenDelegate", params: { validator: VALIDATOR, amount: "10", isUndelegate: false } },
      (body) => {
        (body.action as Record<string, unknown>).wei = "10";
        delete (body.action as Record<string, unknown>).validator;
      },
    );
    await expectRefused(
      bot,
      id,
      request,
      new RegExp(
        `#${id} \\(tokenDelegate, .*not a valid tokenDelegate \\(action\\.validator: .*action\\.wei: `,
      ),
    );
  });

  it("refuses a row whose TWAP has no size", async () => {
    bot = await openBot();
    const { id, request } = await journalSigned(bot, await SETUPS.twapOrder(bot), (body) => {
      delete ((body.action as Record<string, unknown>).twap as Record<string, unknown>).s;
    });
    await expectRefused(bot, id, request, /not a valid twapOrder \(action\.twap\.s: /);
  });
});

describe("reconcile after `hlbot journal rebuild`", () => {
  it("reads rows rebuilt from the venue's history as the records they are, and credits them to nothing else", async () => {
    bot = await openBot();
    // A delegation that landed while the journal was lost, then rebuilt from delegatorHistory as
    // `hlbot journal rebuild` does (the row's request is the venue's record, not a request body).
    const call = await SETUPS.tokenDelegate(bot);
    const sent = await bot.runtime.exchange!.send(await bot.runtime.exchange!.sign(call));
    expect(sent.status).toBe("accepted");
    bot.sim.advance(30_000);
    const history = await bot.runtime.info.delegatorHistory({ user: bot.address });
    const delegation = history.find((e) => e.delta.delegate !== undefined)!;
    expect(
      bot.runtime.journal.importVenueRecord({
        cycleId: CYCLE,
        strategy: "venue-history",
        account: bot.address,
        actionType: "tokenDelegate",
        at: delegation.time,
        key: historyRecordKey(delegation),
        record: delegation,
      }),
    ).toBe(true);
    // The same delegation again, journaled but never sent: the rebuilt record is not its evidence.
    const { id, request } = await journalSigned(bot, call);
    const results = await reconcileNow(bot);
    expect(results).toEqual([
      expect.objectContaining({ submissionId: id, actionType: "tokenDelegate", verdict: "unresolved" }),
    ]);
    pastDeadline(bot, request);
    expect((await reconcileNow(bot)).map((r) => r.verdict)).toEqual(["absent"]);
  });
});

describe("reconcile when the venue reuses a TWAP id (a restarted simulator)", () => {
  it("does not let an old TWAP on another pair claim a new TWAP of the same id", async () => {
    // An operator's trial: `hlbot venue` restarted under a running bot numbered TWAPs from 1000 again;
    // an old PURR TWAP #1000 in the journal claimed the new HYPE TWAP #1000, whose answer was lost, and
    // it was reconciled "did not land" while it ran.
    bot = await openBot();
    const purr = await journalSigned(bot, {
      type: "twapOrder",
      params: { asset: 10_000, isBuy: true, size: "1000", szDecimals: 0, minutes: 10 },
    });
    bot.runtime.journal.resolve(purr.id, { status: "accepted", twapId: 1000 });
    const { id, request } = await journalSigned(bot, await SETUPS.twapOrder(bot));
    const sent = await bot.runtime.exchange!.send(request);
    expect(sent.status === "accepted" && sent.data).toMatchObject({ twapId: 1000 });
    bot.sim.advance(30_000);
    const results = await reconcileNow(bot);
    expect(results).toEqual([expect.objectContaining({ submissionId: id, verdict: "landed" })]);
  });
});
