// Section 3: one decision cycle (`plan`: reconcile, snapshot, all four strategy kinds, risk guards,
// signing in dry-run, journal) for a large account: 200 validators, 100 spot tokens with balances, 50
// delegations, 10 running TWAPs. The CPU part is measured on recorded venue answers: the transport's
// read is replaced by one that hands back the simulator's recorded JSON text, so the cycle still
// parses and validates every answer but does no I/O. The same cycle over HTTP to an in-process
// simulator on 127.0.0.1 is shown beside it, and a breakdown says where the time goes.
import { secp256k1 } from "@noble/curves/secp256k1";
import { bytesToHex } from "@noble/hashes/utils";
import { callFor, runCycle } from "../src/engine/cycle.js";
import type { Intent } from "../src/engine/intents.js";
import { readSnapshot } from "../src/engine/readSnapshot.js";
import { applyLimits } from "../src/engine/risk.js";
import { runStrategy, snapshotParts } from "../src/engine/strategies/registry.js";
import { parseJson, stringifyJson } from "../src/lib/json.js";
import { startSimulator } from "../src/simulator/index.js";
import { privateKeySigner } from "../src/venue/signing/index.js";
import { createBenchBot, largeStrategies } from "./lib/bot.js";
import type { Figure, SectionResult } from "./lib/report.js";
import { fmtNumber } from "./lib/report.js";
import { LARGE, labelAddress, largeScenario } from "./lib/scenario.js";
import { cpuMs, median, nowMs, quantile } from "./lib/stats.js";
import { placeTwaps } from "./lib/twaps.js";

export async function runCycleBench(o: { quick: boolean }): Promise<SectionResult> {
  const notes: string[] = [];
  const keyHex = bytesToHex(secp256k1.utils.randomSecretKey());
  const signer = privateKeySigner(keyHex, "bench key");
  const account = signer.address;
  const sim = await startSimulator({ scenario: largeScenario(account), rateLimit: false });
  const bot = await createBenchBot({
    baseUrl: sim.url,
    key: keyHex,
    strategies: largeStrategies(labelAddress("bench staking account")),
  });
  const runtime = await bot.open("dry-run", () => sim.now());
  try {
    await placeTwaps((b) => sim.exchange(b), signer, sim.prices(), sim.now());
    const facts = await runtime.facts();
    const deps = runtime.cycleDeps(facts);
    const strategies = runtime.strategies();
    const cycle = () => runCycle(deps, { trigger: "plan", strategies, killSwitchActive: false });

    // ---- over HTTP (the in-process simulator answers on 127.0.0.1) ----
    const httpWarm = o.quick ? 1 : 10;
    const httpSamples = o.quick ? 3 : 40;
    for (let i = 0; i < httpWarm; i++) await cycle();
    const httpWall: number[] = [];
    for (let i = 0; i < httpSamples; i++) {
      const t0 = nowMs();
      await cycle();
      httpWall.push(nowMs() - t0);
    }

    // ---- recorded answers: the same cycle without I/O ----
    const recorded = new Map<string, string>();
    const transport = runtime.transport as unknown as {
      read: (body: Record<string, unknown>) => Promise<unknown>;
    };
    transport.read = async (body) => {
      const key = stringifyJson(body);
      let text = recorded.get(key);
      if (text === undefined) {
        text = sim.request("info", body).text;
        recorded.set(key, text);
      }
      return parseJson(text);
    };
    const first = await cycle();
    const actions = first.actions.length;
    const signed = first.actions.filter((a) => a.outcome === "dry-run").length;
    const snap = first.snapshot;
    if (
      snap.validators.length !== LARGE.validators ||
      snap.balances.size !== LARGE.tokens ||
      snap.delegations.length !== LARGE.delegations ||
      snap.twaps.length !== LARGE.twaps
    ) {
      throw new Error(
        `large account not as built: ${snap.validators.length} validators, ${snap.balances.size} balances, ${snap.delegations.length} delegations, ${snap.twaps.length} TWAPs`,
      );
    }
    const bytes = [...recorded.values()].reduce((a, t) => a + t.length, 0);
    notes.push(
      `account seen by the cycle: ${snap.validators.length} validators, ${snap.balances.size} spot balances, ${snap.delegations.length} delegations, ${snap.twaps.length} running TWAPs; ${recorded.size} info answers (${(bytes / 1024).toFixed(0)} KiB of JSON) per cycle`,
    );
    notes.push(
      `each cycle decides ${first.decisions.length} things and signs ${signed} of ${actions} actions (dry run: built and signed, not sent)`,
    );

    const warm = o.quick ? 2 : 20;
    const samples = o.quick ? 5 : 100;
    for (let i = 0; i < warm; i++) await cycle();
    const cpu: number[] = [];
    const wall: number[] = [];
    for (let i = 0; i < samples; i++) {
      const c0 = cpuMs();
      const t0 = nowMs();
      await cycle();
      wall.push(nowMs() - t0);
      cpu.push(cpuMs() - c0);
    }

    // ---- where the time goes (same recorded answers) ----
    const parts = snapshotParts(strategies.map((s) => s.kind));
    const phase = {
      snapshot: [] as number[],
      decide: [] as number[],
      guards: [] as number[],
      sign: [] as number[],
    };
    for (let i = 0; i < (o.quick ? 3 : 50); i++) {
      const now = sim.now();
      let t = nowMs();
      const snapshot = await readSnapshot(runtime.info, {
        account,
        network: deps.network,
        rules: deps.rules,
        parts,
        facts,
        now,
      });
      phase.snapshot.push(nowMs() - t);
      t = nowMs();
      const intents: Intent[] = [];
      for (const s of strategies) {
        for (const d of runStrategy(s, snapshot, now, {
          spentUsd: deps.journal.spentUsd(s.name),
        })) {
          if (d.kind !== "skip") intents.push(d);
        }
      }
      phase.decide.push(nowMs() - t);
      t = nowMs();
      const usage = deps.journal.usage(account, now - 86_400_000);
      const limited = applyLimits(intents, deps.limits, usage, {
        killSwitchActive: false,
        rules: deps.rules,
      });
      phase.guards.push(nowMs() - t);
      t = nowMs();
      for (const intent of limited.allowed) await runtime.exchange!.submit(callFor(intent));
      phase.sign.push(nowMs() - t);
    }

    const cpuMedian = median(cpu);
    const figures: Figure[] = [
      {
        id: "3a",
        name: "plan cycle CPU time, recorded answers (median)",
        value: cpuMedian,
        unit: "ms",
        baseline: { name: "same cycle over HTTP, wall", value: median(httpWall) },
        ratio: cpuMedian / median(httpWall),
        ratioLabel: "CPU/HTTP cycle",
        target: { text: "< 20 ms", met: cpuMedian < 20 },
      },
    ];
    notes.push(
      `recorded answers: CPU p50 ${fmtNumber(cpuMedian)} ms, p90 ${fmtNumber(quantile(cpu, 0.9))} ms; wall p50 ${fmtNumber(median(wall))} ms (${samples} cycles after ${warm} warm-up)`,
    );
    notes.push(
      `over HTTP with the simulator answering in the same process: wall p50 ${fmtNumber(median(httpWall))} ms, p90 ${fmtNumber(quantile(httpWall, 0.9))} ms (${httpSamples} cycles)`,
    );
    const p = (xs: number[]) => fmtNumber(median(xs));
    const rest =
      median(wall) -
      median(phase.snapshot) -
      median(phase.decide) -
      median(phase.guards) -
      median(phase.sign);
    notes.push(
      `breakdown (wall medians): snapshot read+parse+validate+build ${p(phase.snapshot)} ms, four strategies ${p(phase.decide)} ms, guards ${p(phase.guards)} ms, build+sign ${signed} actions ${p(phase.sign)} ms, journal and the rest ≈ ${fmtNumber(Math.max(0, rest))} ms`,
    );
    return { title: "3. Decision cycle (large account)", figures, notes };
  } finally {
    await runtime.close();
    await sim.stop();
    bot.cleanup();
  }
}
