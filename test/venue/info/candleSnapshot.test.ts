// candleSnapshot through the info client: the request is the nested wire shape, a real-shaped answer
// parses (prices kept as the venue's strings), `null` is no candles, and an answer without the prices a
// replay acts on is refused (naming the field) while the shown-only fields may be absent; the weight
// surcharge counts per 60 candles. The venue's side is a fixed answer on the transport's wire. Also the
// candle boundaries the simulator and the downloader share.
import { describe, expect, it } from "vitest";
import { BadResponseError, ValidationError } from "../../../src/lib/errors.js";
import { InfoClient } from "../../../src/venue/info/client.js";
import { candleOpen, nextCandleOpen } from "../../../src/venue/info/methods/candleSnapshot.js";
import { resolveEndpoints } from "../../../src/venue/networks.js";
import { WeightBudget } from "../../../src/venue/transport/budget.js";
import { HttpTransport } from "../../../src/venue/transport/http.js";

function clientAnswering(
  text: string,
  seen: string[] = [],
  options: { budget?: WeightBudget; perItemWeight?: number } = {},
) {
  const transport = new HttpTransport({
    // An address that can reach nothing: the answer comes from `wire` (a test audit: it named the real
    // mainnet URL).
    endpoints: resolveEndpoints("mainnet", "http://venue.invalid"),
    budget: options.budget ?? null,
    ...(options.perItemWeight === undefined ? {} : { perItemWeight: options.perItemWeight }),
    retry: { attempts: 1 },
    wire: async ({ bodyText }) => {
      seen.push(bodyText);
      return { status: 200, headers: { "content-type": "application/json" }, text };
    },
  });
  return new InfoClient(transport);
}

const ANSWER = JSON.stringify([
  {
    t: 1735689600000,
    T: 1735693199999,
    s: "@107",
    i: "1h",
    o: "24.8",
    c: "24.896",
    h: "24.986",
    l: "24.639",
    v: "59483.68",
    n: 804,
  },
]);

describe("candleSnapshot", () => {
  it("sends the nested request and parses a real-shaped answer", async () => {
    const seen: string[] = [];
    const candles = await clientAnswering(ANSWER, seen).candleSnapshot({
      req: { coin: "@107", interval: "1h", startTime: 1735689600000, endTime: 1735693200000 },
    });
    expect(JSON.parse(seen[0]!)).toEqual({
      type: "candleSnapshot",
      req: { coin: "@107", interval: "1h", startTime: 1735689600000, endTime: 1735693200000 },
    });
    expect(candles).toEqual([
      expect.objectContaining({ t: 1735689600000, o: "24.8", h: "24.986", l: "24.639", c: "24.896" }),
    ]);
  });

  it("reads null as no candles", async () => {
    expect(
      await clientAnswering("null").candleSnapshot({ req: { coin: "@9999", interval: "1d", startTime: 0 } }),
    ).toEqual([]);
  });

  it("refuses an answer without prices, and a bad interval before sending", async () => {
    await expect(
      clientAnswering('[{"t":1,"o":"1"}]').candleSnapshot({
        req: { coin: "@107", interval: "1h", startTime: 0 },
      }),
    ).rejects.toBeInstanceOf(BadResponseError);
    const seen: string[] = [];
    await expect(
      clientAnswering(ANSWER, seen).candleSnapshot({
        req: { coin: "@107", interval: "7m" as "1m", startTime: 0 },
      }),
    ).rejects.toBeInstanceOf(ValidationError);
    expect(seen).toEqual([]);
  });
});

describe("candleSnapshot answers", () => {
  const req = { coin: "@107", interval: "1h", startTime: 1735689600000 } as const;
  const candle = JSON.parse(ANSWER)[0] as Record<string, unknown>;

  it("names the field of a price sent as a number or a missing open time", async () => {
    const issues = async (c: unknown) => {
      const err = await clientAnswering(JSON.stringify([c]))
        .candleSnapshot({ req })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadResponseError);
      return (err as BadResponseError).issues.map((i) => i.path);
    };
    expect(await issues({ ...candle, h: 24.986 })).toEqual(["0.h"]);
    const { t: _t, ...noTime } = candle;
    expect(await issues(noTime)).toEqual(["0.t"]);
  });

  it("tolerates a candle without T, s, i, v or n", async () => {
    const [c] = await clientAnswering(
      '[{"t":1735689600000,"o":"1.0","h":"1.0","l":"1.0","c":"1.0"}]',
    ).candleSnapshot({ req });
    expect(c!.T).toBeUndefined();
    expect(c!.o).toBe("1.0");
  });

  it("charges 20 and +1 per 60 candles, whatever the transport's per-20 override says", async () => {
    const many = Array.from({ length: 130 }, (_, i) => ({ ...candle, t: 1735689600000 + i * 3_600_000 }));
    const budget = new WeightBudget();
    await clientAnswering(JSON.stringify(many), [], { budget, perItemWeight: 1 / 10 }).candleSnapshot({
      req,
    });
    expect(budget.used()).toBe(20 + 2);
  });
});

describe("candle boundaries", () => {
  const at = (iso: string) => Date.parse(iso);
  it("counts fixed lengths from the epoch, weeks from Monday and months by the calendar", () => {
    expect(candleOpen("1h", at("2025-01-01T05:59:59.999Z"))).toBe(at("2025-01-01T05:00:00Z"));
    expect(candleOpen("4h", at("2025-01-01T05:00:00Z"))).toBe(at("2025-01-01T04:00:00Z"));
    // 2025-01-01 was a Wednesday.
    expect(candleOpen("1w", at("2025-01-01T12:00:00Z"))).toBe(at("2024-12-30T00:00:00Z"));
    expect(nextCandleOpen("1w", at("2024-12-30T00:00:00Z"))).toBe(at("2025-01-06T00:00:00Z"));
    expect(candleOpen("1M", at("2025-02-28T23:00:00Z"))).toBe(at("2025-02-01T00:00:00Z"));
    expect(nextCandleOpen("1M", at("2025-02-01T00:00:00Z"))).toBe(at("2025-03-01T00:00:00Z"));
    expect(nextCandleOpen("1M", at("2025-12-01T00:00:00Z"))).toBe(at("2026-01-01T00:00:00Z"));
    expect(nextCandleOpen("15m", 0)).toBe(900_000);
  });
});
