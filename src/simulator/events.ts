// A scenario's timed events (`events:` in the YAML), put on the venue's clock when it starts: a
// validator jailed or unjailed, its commission or APR changed, a pair halted or resumed, a price shock,
// money moved in or out of an account from outside the venue, an outage of one endpoint for a period.
// Each event goes through the same methods a test would call on the simulator (setValidator,
// setPairHalted, setPrice, fund, setFaults), so its effect is in the ledger like any other, and the bot
// only learns of it the way it would on the venue: by reading the account and the validators.
import { toWireDecimal, ZERO } from "../lib/decimal.js";
import type { VenueCore } from "./core.js";
import { ENDPOINTS, type Endpoint } from "./faults.js";
import type { EventTime, FaultKnobsInput, FaultsInput, ScenarioEvent } from "./scenario.js";

/** Absolute time of an event of a venue that started at `start`. */
export function eventTimeOf(at: EventTime, start: number): number {
  return "offset" in at ? start + at.offset : at.time;
}

/** Schedules every event of the scenario on the venue's clock (events before the start run at once). */
export function scheduleScenarioEvents(core: VenueCore): void {
  const outages = new Outages(core);
  core.scenario.events.forEach((event, i) => {
    const at = eventTimeOf(event.at, core.startTime);
    core.clock.schedule(at, `event ${i + 1}: ${event.type}`, () => apply(core, event, outages));
  });
}

function apply(core: VenueCore, e: ScenarioEvent, outages: Outages): void {
  const now = core.now();
  switch (e.type) {
    case "validator":
      core.setValidator(e.validator, {
        ...(e.jailed === undefined
          ? {}
          : { isJailed: e.jailed, unjailableAfter: e.jailed ? now + (e.unjailableIn ?? 0) : null }),
        ...(e.active === undefined ? {} : { isActive: e.active }),
        ...(e.commission === undefined ? {} : { commission: e.commission }),
        ...(e.apr === undefined ? {} : { apr: e.apr }),
        ...(e.uptime === undefined ? {} : { uptime: e.uptime }),
      });
      return;
    case "pair":
      core.setPairHalted(e.pair, e.halted);
      return;
    case "price": {
      const px = e.px ?? core.price(e.pair).times(1 + e.change!);
      core.setPrice(e.pair, px);
      return;
    }
    case "deposit":
      core.fund(e.account, e.coin, e.amount, "event");
      return;
    case "withdrawal": {
      // The venue cannot pay out what is held by running orders; the rest of the request is refused.
      const balance = core.balance(e.account, e.coin);
      const available = balance.available;
      const amount = e.amount.lte(available) ? e.amount : available;
      if (amount.gt(ZERO)) core.fund(e.account, e.coin, amount.neg(), "event");
      if (amount.lt(e.amount))
        core.ledger.record(
          now,
          "withdrawalShort",
          {
            coin: e.coin,
            requested: toWireDecimal(e.amount),
            paid: toWireDecimal(amount),
            held: toWireDecimal(balance.total.minus(available)),
          },
          { user: e.account },
        );
      return;
    }
    case "outage":
      outages.begin(e.endpoint, e.faults, now + e.for);
      return;
  }
}

/**
 * Outages overlay the scenario's own faults for their period; overlapping outages combine (the later
 * one's knobs win per key) and each ends on its own.
 */
class Outages {
  private readonly base: FaultsInput;
  private readonly active: Array<{ endpoint: Endpoint | "all"; knobs: FaultKnobsInput; until: number }> = [];

  constructor(private readonly core: VenueCore) {
    this.base = { ...core.faults.input };
  }

  begin(endpoint: Endpoint | "all", knobs: FaultKnobsInput, until: number): void {
    const entry = { endpoint, knobs, until };
    this.active.push(entry);
    this.apply();
    this.core.ledger.record(this.core.now(), "outage", { endpoint, until, state: "begin" });
    this.core.clock.schedule(until, `outage of ${endpoint} ends`, () => {
      this.active.splice(this.active.indexOf(entry), 1);
      this.apply();
      this.core.ledger.record(this.core.now(), "outage", { endpoint, until, state: "end" });
    });
  }

  private apply(): void {
    const out: FaultsInput = { ...this.base };
    // Per-endpoint knobs override `all` ones, so an outage of all endpoints is written into each.
    for (const o of this.active)
      for (const e of o.endpoint === "all" ? ENDPOINTS : [o.endpoint])
        out[e] = { ...out.all, ...out[e], ...o.knobs };
    this.core.faults.set(out);
  }
}
