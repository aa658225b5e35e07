// The one transport factory (#14 §3): the settings a bot file and the command line give become the
// endpoints, timeout, retry policy, response cap and weight budget; hooks add what one caller alone has.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { loadConfig } from "../../../src/engine/config/loader.js";
import { transportSettings } from "../../../src/engine/transport.js";
import { createSimulator } from "../../../src/simulator/index.js";
import { NETWORKS } from "../../../src/venue/networks.js";
import { WeightBudget } from "../../../src/venue/transport/budget.js";
import { createTransport } from "../../../src/venue/transport/factory.js";
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS } from "../../../src/venue/transport/http.js";
import { DEFAULT_RETRY_POLICY } from "../../../src/venue/transport/retry.js";
import { testScenario } from "../../simulator/fixtures.js";

describe("createTransport", () => {
  it("gives the transport's defaults when only the network is set", async () => {
    const t = createTransport({ network: "mainnet" });
    expect(t.endpoints.info).toBe(`${NETWORKS.mainnet.apiUrl}/info`);
    expect(t.endpoints.explorer).toBe(NETWORKS.mainnet.explorerUrl);
    expect(t.timeoutMs).toBe(DEFAULT_TIMEOUT_MS);
    expect(t.retryPolicy).toEqual(DEFAULT_RETRY_POLICY);
    expect(t.maxResponseBytes).toBe(DEFAULT_MAX_RESPONSE_BYTES);
    expect(t.budget?.capacity).toBe(1200);
    await t.close();
  });

  it("applies every setting", async () => {
    const t = createTransport({
      network: "testnet",
      baseUrl: "http://127.0.0.1:9/prefix",
      explorerUrl: "http://127.0.0.1:8/explorer",
      timeoutMs: 1234,
      readAttempts: 2,
      maxResponseBytes: 100_000,
      weightPerMinute: 600,
    });
    expect(t.endpoints).toEqual({
      info: "http://127.0.0.1:9/prefix/info",
      exchange: "http://127.0.0.1:9/prefix/exchange",
      explorer: "http://127.0.0.1:8/explorer",
    });
    expect(t.timeoutMs).toBe(1234);
    expect(t.retryPolicy.attempts).toBe(2);
    expect(t.maxResponseBytes).toBe(100_000);
    expect(t.budget?.capacity).toBe(600);
    await t.close();
  });

  it("takes a budget of the caller's (or none) and a wire in place of HTTP", async () => {
    const own = new WeightBudget({ capacity: 7 });
    const a = createTransport({ network: "testnet", weightPerMinute: 600 }, { budget: own });
    expect(a.budget).toBe(own);
    await a.close();

    const sim = createSimulator({ scenario: testScenario() });
    const seen: string[] = [];
    const b = createTransport(
      { network: "testnet", baseUrl: "http://simulator.invalid" },
      { wire: sim.wire, budget: null, onResponse: (e) => seen.push(`${e.endpoint} ${e.status}`) },
    );
    expect(b.budget).toBeNull();
    expect(await b.read({ type: "allMids" }, { weight: 2 })).toEqual({ "@107": "25.0" });
    expect(seen).toEqual(["info 200"]);
    await b.close();
    await sim.stop();
  });
});

describe("transportSettings of a bot file", () => {
  const dir = mkdtempSync(join(tmpdir(), "hlbot-transport-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "bot.yaml");
  writeFileSync(
    join(dir, "idle.yaml"),
    stringify({
      name: "idle",
      kind: "link-staking",
      schedule: "0 * * * *",
      enabled: false,
      params: { counterparty: "0x3333333333333333333333333333333333333333", finalize: false },
    }),
  );
  writeFileSync(
    file,
    stringify({
      network: "testnet",
      baseUrl: "http://127.0.0.1:9",
      explorerUrl: "http://127.0.0.1:8/explorer",
      strategies: ["./idle.yaml"],
      limits: { maxOrderUsd: 1, maxDailyNotionalUsd: 1, maxStakeMovePerDay: 1 },
      venue: { timeoutMs: 2000, readAttempts: 3, weightPerMinute: 300, maxResponseBytes: 1_000_000 },
    }),
  );

  it("takes the file's URLs and venue bounds", async () => {
    const config = await loadConfig(file, {});
    expect(transportSettings(config)).toEqual({
      network: "testnet",
      baseUrl: "http://127.0.0.1:9",
      explorerUrl: "http://127.0.0.1:8/explorer",
      timeoutMs: 2000,
      readAttempts: 3,
      maxResponseBytes: 1_000_000,
      weightPerMinute: 300,
    });
  });

  it("lets the flags override them, and another network leave the file's URLs behind", async () => {
    const config = await loadConfig(file, {});
    expect(transportSettings(config, { baseUrl: "http://127.0.0.1:7", timeoutMs: 50 })).toMatchObject({
      baseUrl: "http://127.0.0.1:7",
      explorerUrl: "http://127.0.0.1:8/explorer",
      timeoutMs: 50,
      weightPerMinute: 300,
    });
    expect(transportSettings(config, { network: "mainnet" })).toMatchObject({
      network: "mainnet",
      baseUrl: undefined,
      explorerUrl: undefined,
      timeoutMs: 2000,
    });
  });
});
