// Section 2: info round trips against the simulator on 127.0.0.1 (a child process serving the large
// scenario in real time, rate limit off). Three clients ask the same questions in turn: hlbot's
// InfoClient (request validation, lossless JSON, zod response validation; weight budget disabled), the
// floor (a bare undici request with JSON.parse on a keep-alive pool), and the peer SDK's InfoClient over
// its HttpTransport (fetch + JSON.parse, no response validation). Requests are sequential, so
// requests/s = 1 / mean latency.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HttpTransport as PeerHttpTransport, InfoClient as PeerInfoClient } from "@nktkas/hyperliquid";
import { secp256k1 } from "@noble/curves/secp256k1";
import { bytesToHex } from "@noble/hashes/utils";
import { isSafeNumber, parse as losslessParse } from "lossless-json";
import { Agent, request } from "undici";
import { parseJson } from "../src/lib/json.js";
import { InfoClient } from "../src/venue/info/client.js";
import { ValidatorSummariesResponse } from "../src/venue/info/methods/validatorSummaries.js";
import { resolveEndpoints } from "../src/venue/networks.js";
import { privateKeySigner } from "../src/venue/signing/index.js";
import { HttpTransport } from "../src/venue/transport/http.js";
import { startSimChild } from "./lib/child.js";
import type { Figure, SectionResult } from "./lib/report.js";
import { fmtNumber } from "./lib/report.js";
import { LARGE, largeScenario, writeScenarioYaml } from "./lib/scenario.js";
import { cpuMs, nowMs, quantile } from "./lib/stats.js";
import { placeTwaps } from "./lib/twaps.js";

type Call = () => Promise<unknown>;

interface ClientStats {
  p50: number;
  p99: number;
  reqPerSec: number;
}

function statsOf(samples: number[]): ClientStats {
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return { p50: quantile(samples, 0.5), p99: quantile(samples, 0.99), reqPerSec: 1000 / mean };
}

export async function runInfo(o: { quick: boolean }): Promise<SectionResult> {
  const notes: string[] = [];
  const figures: Figure[] = [];
  const dir = mkdtempSync(join(tmpdir(), "hlbot-bench-info-"));
  const signer = privateKeySigner(bytesToHex(secp256k1.utils.randomSecretKey()), "bench key");
  const user = signer.address;
  const scenarioFile = join(dir, "large.yaml");
  writeScenarioYaml(scenarioFile, largeScenario(user));
  const child = await startSimChild(scenarioFile);
  const floorAgent = new Agent({ keepAliveTimeout: 30_000 });
  const transport = new HttpTransport({ endpoints: resolveEndpoints("testnet", child.url), budget: null });
  try {
    const infoUrl = `${child.url}/info`;
    const postJson = async (url: string, body: string): Promise<unknown> => {
      const res = await request(url, {
        method: "POST",
        dispatcher: floorAgent,
        headers: { "content-type": "application/json" },
        body,
      });
      return JSON.parse(await res.body.text());
    };
    const mids = (await postJson(infoUrl, '{"type":"allMids"}')) as Record<string, string>;
    await placeTwaps((b) => postJson(`${child.url}/exchange`, JSON.stringify(b)), signer, mids, Date.now());

    const ours = new InfoClient(transport);
    const peer = new PeerInfoClient({
      transport: new PeerHttpTransport({ apiUrl: child.url, isTestnet: true }),
    });
    const spotBody = JSON.stringify({ type: "spotClearinghouseState", user });
    const valBody = JSON.stringify({ type: "validatorSummaries" });

    // The three must see the same account before they are timed.
    const [a, b, c] = await Promise.all([
      ours.spotClearinghouseState({ user }),
      postJson(infoUrl, spotBody) as Promise<{ balances: unknown[] }>,
      peer.spotClearinghouseState({ user: user as `0x${string}` }),
    ]);
    if (
      a.balances.length !== LARGE.tokens ||
      b.balances.length !== a.balances.length ||
      c.balances.length !== a.balances.length
    ) {
      throw new Error(
        `spotClearinghouseState disagrees: ${a.balances.length}/${b.balances.length}/${c.balances.length} balances`,
      );
    }
    const vals = await ours.validatorSummaries();
    if (vals.length !== LARGE.validators)
      throw new Error(`expected ${LARGE.validators} validators, got ${vals.length}`);
    const beyond = vals.filter((v) => v.stake > BigInt(Number.MAX_SAFE_INTEGER)).length;
    notes.push(
      `account with ${a.balances.length} spot balances (10 of them partly held by running TWAPs); ${vals.length} validators, ${beyond} with stakes beyond 2^53 wei (hlbot keeps them exact as bigint; JSON.parse in the floor and the peer rounds them)`,
    );

    const methods: Array<{ name: string; clients: Record<string, Call> }> = [
      {
        name: "spotClearinghouseState",
        clients: {
          hlbot: () => ours.spotClearinghouseState({ user }),
          floor: () => postJson(infoUrl, spotBody),
          peer: () => peer.spotClearinghouseState({ user: user as `0x${string}` }),
        },
      },
      {
        name: "validatorSummaries",
        clients: {
          hlbot: () => ours.validatorSummaries(),
          floor: () => postJson(infoUrl, valBody),
          peer: () => peer.validatorSummaries(),
        },
      },
    ];
    const warmup = o.quick ? 5 : 150;
    const rounds = o.quick ? 1 : 6;
    const perRound = o.quick ? 10 : 120;
    let id = 0;
    for (const m of methods) {
      const names = Object.keys(m.clients);
      for (const name of names) for (let i = 0; i < warmup; i++) await m.clients[name]!();
      const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
      const cpu: Record<string, number> = Object.fromEntries(names.map((n) => [n, 0]));
      for (let r = 0; r < rounds; r++) {
        // Rotate who goes first so slow drift of the machine is shared out evenly.
        const order = names.map((_, i) => names[(i + r) % names.length]!);
        for (const name of order) {
          const call = m.clients[name]!;
          const list = samples[name]!;
          const c0 = cpuMs();
          for (let i = 0; i < perRound; i++) {
            const t0 = nowMs();
            await call();
            list.push(nowMs() - t0);
          }
          cpu[name] = cpu[name]! + (cpuMs() - c0);
        }
      }
      const s = Object.fromEntries(
        names.map((n) => [n, { ...statsOf(samples[n]!), cpuPerReq: cpu[n]! / (rounds * perRound) }]),
      ) as Record<"hlbot" | "floor" | "peer", ClientStats & { cpuPerReq: number }>;
      figures.push({
        id: `2${"abcd"[id++]}`,
        name: `${m.name} p50 latency vs floor`,
        value: s.hlbot.p50,
        unit: "ms",
        baseline: { name: "undici + JSON.parse", value: s.floor.p50 },
        ratio: s.hlbot.p50 / s.floor.p50,
        ratioLabel: "hlbot/floor",
        target: { text: "≤ 1.25×", met: s.hlbot.p50 / s.floor.p50 <= 1.25 },
      });
      figures.push({
        id: `2${"abcd"[id++]}`,
        name: `${m.name} p50 latency vs peer`,
        value: s.hlbot.p50,
        unit: "ms",
        baseline: { name: "@nktkas/hyperliquid", value: s.peer.p50 },
        ratio: s.hlbot.p50 / s.peer.p50,
        ratioLabel: "hlbot/peer",
        target: { text: "< 1× (faster)", met: s.hlbot.p50 < s.peer.p50 },
      });
      notes.push(
        `${m.name}: ` +
          (["hlbot", "floor", "peer"] as const)
            .map(
              (n) =>
                `${n} p50 ${fmtNumber(s[n].p50)} ms, p99 ${fmtNumber(s[n].p99)} ms, ${fmtNumber(s[n].reqPerSec)} req/s, client CPU ${fmtNumber(s[n].cpuPerReq)} ms/req`,
            )
            .join("; ") +
          ` (${rounds}×${perRound} sequential requests per client after ${warmup} warm-up)`,
      );
    }

    // Where hlbot's client time goes on the big answer, without the network: parsing and validation.
    const raw = await request(infoUrl, {
      method: "POST",
      dispatcher: floorAgent,
      headers: { "content-type": "application/json" },
      body: valBody,
    }).then((r) => r.body.text());
    const parsed = parseJson(raw);
    const cost = (fn: () => unknown): number => {
      const n = o.quick ? 20 : 400;
      for (let i = 0; i < n / 4; i++) fn();
      const t0 = nowMs();
      for (let i = 0; i < n; i++) fn();
      return (nowMs() - t0) / n;
    };
    const exact = (text: string) =>
      losslessParse(text, null, (v: string) =>
        /^-?\d+$/.test(v) && !isSafeNumber(v) ? BigInt(v) : Number(v),
      );
    notes.push(
      `validatorSummaries answer (${(raw.length / 1024).toFixed(0)} KiB) in-process: JSON.parse ${fmtNumber(cost(() => JSON.parse(raw)))} ms, hlbot parseJson (exact) ${fmtNumber(cost(() => parseJson(raw)))} ms, lossless-json alone (hlbot's previous path) ${fmtNumber(cost(() => exact(raw)))} ms, zod validation of the parsed answer ${fmtNumber(cost(() => ValidatorSummariesResponse.parse(parsed)))} ms`,
    );
  } finally {
    await transport.close();
    await floorAgent.close();
    await child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return { title: "2. Info round trip (127.0.0.1)", figures, notes };
}
