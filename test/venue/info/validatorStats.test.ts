// validatorSummaries' `stats` is a list of [period, stats] pairs. hlbot reads day, week and month: each
// must be there once with valid stats, in any order; a period the venue adds is kept as sent, reported
// once and not validated, so a new period never stops staking. Checked at the schema (a real HTTP
// server answering the client) and where a cycle reads the stats (readSnapshot, through a rewriting
// proxy in front of the embedded simulator).
import { afterEach, describe, expect, it } from "vitest";
import { readSnapshot } from "../../../src/engine/readSnapshot.js";
import { Decimal } from "../../../src/lib/decimal.js";
import { BadResponseError } from "../../../src/lib/errors.js";
import { startSimulator } from "../../../src/simulator/index.js";
import { delegatorApr } from "../../../src/venue/constants.js";
import { InfoClient } from "../../../src/venue/info/client.js";
import { validatorPeriodStats } from "../../../src/venue/info/methods/index.js";
import { resetUnknownReports, type UnknownValue } from "../../../src/venue/info/tolerant.js";
import { resolveEndpoints } from "../../../src/venue/networks.js";
import { HttpTransport } from "../../../src/venue/transport/http.js";
import { startHttpServer } from "../../helpers/httpServer.js";
import { startVenueProxy } from "../../helpers/venueProxy.js";
import * as fx from "./fixtures.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
  resetUnknownReports();
});

async function clientAnswering(json: unknown) {
  const server = await startHttpServer([{ json }]);
  const transport = new HttpTransport({
    endpoints: resolveEndpoints("testnet", server.url),
    retry: { attempts: 1 },
  });
  cleanups.push(async () => {
    await transport.close();
    await server.close();
  });
  const seen: UnknownValue[] = [];
  const client = new InfoClient(transport, { onUnknown: (_message, unknown) => seen.push(unknown) });
  return { client, seen };
}

/** The fixture's stats by period name. */
const [day, week, month] = fx.validatorSummary().stats as Array<[string, unknown]>;

describe("validatorSummaries stats", () => {
  it("accepts the periods in another order and reads each by its name", async () => {
    const reordered = { ...fx.validatorSummary(), stats: [month, day, week] };
    const { client, seen } = await clientAnswering([reordered]);
    const [v] = await client.validatorSummaries();
    expect(validatorPeriodStats(v!.stats, "day")).toMatchObject({ uptimeFraction: "1.0", nSamples: 1440 });
    expect(validatorPeriodStats(v!.stats, "week")).toMatchObject({ predictedApr: "0.0216", nSamples: 10080 });
    expect(validatorPeriodStats(v!.stats, "month")).toMatchObject({ uptimeFraction: "0.998" });
    expect(seen).toEqual([]);
  });

  it("accepts a period hlbot does not read, unvalidated, and reports it once", async () => {
    const extra = {
      ...fx.validatorSummary(),
      stats: [["year", { uptimeFraction: 0.5, somethingNew: true }], day, ["allTime", null], week, month],
    };
    const { client, seen } = await clientAnswering([extra, extra]);
    const answer = await client.validatorSummaries();
    expect(answer).toHaveLength(2);
    expect(validatorPeriodStats(answer[1]!.stats, "week").predictedApr).toBe("0.0216");
    // Kept as the venue sent it.
    expect(answer[0]!.stats[0]).toEqual(["year", { uptimeFraction: 0.5, somethingNew: true }]);
    expect(seen).toEqual([
      { query: "validatorSummaries", field: "[].stats[].0", value: "year" },
      { query: "validatorSummaries", field: "[].stats[].0", value: "allTime" },
    ]);
  });

  it("refuses an answer without week, naming the period and the path", async () => {
    const noWeek = { ...fx.validatorSummary(), stats: [day, month] };
    const { client } = await clientAnswering([fx.validatorSummary(), noWeek]);
    const err = await client.validatorSummaries().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadResponseError);
    const issues = (err as BadResponseError).issues;
    expect(issues.map((i) => i.path)).toEqual(["1.stats"]);
    expect(issues[0]!.message).toMatch(/no "week" period.*day, week and month/);
    expect((err as BadResponseError).message).toContain("1.stats");
  });

  it("refuses a period given twice, and a wrongly typed stat of a period hlbot reads wherever it is", async () => {
    const twice = { ...fx.validatorSummary(), stats: [day, week, month, day] };
    const twiceErr = await (await clientAnswering([twice])).client.validatorSummaries().catch((e) => e);
    expect((twiceErr as BadResponseError).issues.map((i) => [i.path, i.message])).toEqual([
      ["0.stats", expect.stringMatching(/"day" is given 2 times/)],
    ]);
    const bad = { ...fx.validatorSummary(), stats: [["year", {}], day, [week![0], { nSamples: 1 }], month] };
    const badErr = await (await clientAnswering([bad])).client.validatorSummaries().catch((e) => e);
    expect((badErr as BadResponseError).issues.map((i) => i.path)).toEqual([
      "0.stats.2.1.uptimeFraction",
      "0.stats.2.1.predictedApr",
    ]);
  });
});

describe("a cycle's snapshot of validators", () => {
  it("reads day, week and month by name from a reordered answer with an extra period", async () => {
    const sim = await startSimulator({ clock: "real", rateLimit: false });
    const period = (n: number) => ({ uptimeFraction: `0.9${n}`, predictedApr: `0.0${n}`, nSamples: n });
    const proxy = await startVenueProxy(sim.url, {
      validatorSummaries: (answer) =>
        (answer as object[]).map((v) => ({
          ...v,
          stats: [
            ["month", period(3)],
            ["year", { whatever: 1 }],
            ["day", period(1)],
            ["week", period(2)],
          ],
        })),
    });
    const transport = new HttpTransport({ endpoints: resolveEndpoints("testnet", proxy.url) });
    cleanups.push(async () => {
      await transport.close();
      await proxy.close();
      await sim.stop();
    });
    const snapshot = await readSnapshot(new InfoClient(transport, { onUnknown: () => {} }), {
      account: fx.USER,
      network: "testnet",
      rules: {} as never,
      parts: new Set(["validators"]),
      facts: { multiSig: null },
      now: Date.now(),
    });
    expect(snapshot.validators.length).toBeGreaterThan(0);
    for (const v of snapshot.validators) {
      expect(Object.keys(v.stats).sort()).toEqual(["day", "month", "week"]);
      const read = (["day", "week", "month"] as const).map((p) => [
        v.stats[p].uptimeFraction.toFixed(),
        v.stats[p].predictedApr.toFixed(),
        v.stats[p].nSamples,
      ]);
      expect(read).toEqual([
        ["0.91", "0.01", 1],
        ["0.92", "0.02", 2],
        ["0.93", "0.03", 3],
      ]);
    }
  });
});

describe("what a delegator earns: predictedApr after commission (src/venue/constants.ts)", () => {
  it("mainnet's figures fit one rate before commission; the snapshot reads predictedApr as the delegators' rate unless venue.predictedAprNet is false", async () => {
    // The public mainnet sample the default rests on: ValiDAO 4%, B-Harvest 5%, both at uptime 1.0.
    const rateBefore = (apr: string, commission: string) =>
      new Decimal(apr).div(new Decimal(1).minus(commission));
    expect(rateBefore("0.021572699", "0.04").toSignificantDigits(9).toFixed()).toBe(
      rateBefore("0.0213479834", "0.05").toSignificantDigits(9).toFixed(),
    );
    const sim = await startSimulator({ clock: "real", rateLimit: false });
    const transport = new HttpTransport({ endpoints: resolveEndpoints("testnet", sim.url) });
    cleanups.push(async () => {
      await transport.close();
      await sim.stop();
    });
    const info = new InfoClient(transport, { onUnknown: () => {} });
    const read = (predictedAprNet: boolean | undefined) =>
      readSnapshot(info, {
        account: fx.USER,
        network: "testnet",
        rules: (predictedAprNet === undefined ? {} : { predictedAprNet }) as never,
        parts: new Set(["validators"]),
        facts: { multiSig: null },
        now: Date.now(),
      });
    const [byDefault, before_] = [await read(undefined), await read(false)];
    const served = await info.validatorSummaries({});
    for (const v of byDefault.validators) {
      const week = v.stats.week;
      // The simulator states its rate after commission, as the venue does.
      const answer = served.find((x) => x.validator.toLowerCase() === v.address)!;
      expect(week.predictedApr.eq(validatorPeriodStats(answer.stats, "week").predictedApr)).toBe(true);
      expect(week.delegatorApr.toFixed()).toBe(week.predictedApr.toFixed());
      const other = before_.validators.find((x) => x.address === v.address)!;
      expect(other.stats.week.delegatorApr.toFixed()).toBe(
        delegatorApr(week.predictedApr, v.commission, false).toFixed(),
      );
    }
    // The default scenario's ValiDAO: 2.41% before its 2% commission.
    const validao = byDefault.validators.find((v) => v.name === "ValiDAO")!;
    expect([validao.commission.toFixed(), validao.stats.week.delegatorApr.toFixed()]).toEqual([
      "0.02",
      "0.023618",
    ]);
  });
});
