// candleSnapshot through the info client: the request is the nested wire shape, a real-shaped answer
// parses (prices kept as the venue's strings), `null` is no candles, and an answer without the prices a
// replay acts on is refused. The venue's side is a fixed answer on the transport's wire.
import { describe, expect, it } from "vitest";
import { BadResponseError, ValidationError } from "../../../src/lib/errors.js";
import { InfoClient } from "../../../src/venue/info/client.js";
import { resolveEndpoints } from "../../../src/venue/networks.js";
import { HttpTransport } from "../../../src/venue/transport/http.js";

function clientAnswering(text: string, seen: string[] = []) {
  const transport = new HttpTransport({
    endpoints: resolveEndpoints("mainnet"),
    budget: null,
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
