// Section 1: signing throughput. hlbot's twapOrder (L1, phantom agent) and tokenDelegate (user-signed
// EIP-712) signatures against the peer SDK (@nktkas/hyperliquid with an ethers v6 wallet, the way its
// docs show) and against the floor: bare secp256k1 signing of a precomputed digest with @noble/curves.
// Before timing, the three must produce the same r, s, v for the same action, nonce and key, so all
// of them do the same work.

import { TokenDelegateTypes } from "@nktkas/hyperliquid/api/exchange";
import {
  signL1Action as peerSignL1,
  signUserSignedAction as peerSignUser,
} from "@nktkas/hyperliquid/signing";
import { secp256k1 } from "@noble/curves/secp256k1";
import { bytesToHex } from "@noble/hashes/utils";
import { Wallet } from "ethers";
import { Bench } from "tinybench";
import { buildTokenDelegate } from "../src/venue/exchange/actions/tokenDelegate.js";
import { buildTwapOrder } from "../src/venue/exchange/actions/twapOrder.js";
import {
  l1ActionDigest,
  privateKeySigner,
  type Signature,
  signL1Action,
  signUserSignedAction,
  userSignedActionDigest,
} from "../src/venue/signing/index.js";
import type { Figure, SectionResult } from "./lib/report.js";
import { median } from "./lib/stats.js";

export interface SigningOptions {
  quick: boolean;
}

const NONCE0 = 1_767_225_600_000; // 2026-01-01T00:00:00Z: any realistic millisecond nonce
const VALIDATOR = "0x5ac99df645f3414876c816caa18b2d234024b487";

interface PeerSignature {
  r: string;
  s: string;
  v: number;
}

function same(a: Signature, b: PeerSignature): boolean {
  return a.r.toLowerCase() === b.r.toLowerCase() && a.s.toLowerCase() === b.s.toLowerCase() && a.v === b.v;
}

export async function runSigning(o: SigningOptions): Promise<SectionResult> {
  const notes: string[] = [];
  // A throw-away key made for this run; it is never printed.
  const keyBytes = secp256k1.utils.randomSecretKey();
  const keyHex = `0x${bytesToHex(keyBytes)}`;
  const signer = privateKeySigner(keyHex, "bench key");
  const wallet = new Wallet(keyHex);

  const twap = buildTwapOrder({ asset: 10_107, isBuy: true, size: "437.5", szDecimals: 2, minutes: 60 });
  const twapAction = twap as unknown as Record<string, unknown>;
  const delegate = buildTokenDelegate({
    network: "mainnet",
    validator: VALIDATOR,
    amount: "12.5",
    isUndelegate: false,
    nonce: NONCE0,
  });
  const delegateAction = delegate as unknown as Record<string, unknown>;

  // ---- byte-exactness gate: identical r, s, v from hlbot, the peer and the floor ----
  for (let i = 0; i < 8; i++) {
    const nonce = NONCE0 + i * 7919;
    const expiresAfter = nonce + 60_000;
    const ours = await signL1Action(signer, { action: twapAction, nonce, expiresAfter, network: "mainnet" });
    const theirs = await peerSignL1({ wallet, action: twapAction, nonce, expiresAfter, isTestnet: false });
    const floor = secp256k1.sign(
      l1ActionDigest({ action: twapAction, nonce, expiresAfter, network: "mainnet" }),
      keyBytes,
      { prehash: false, lowS: true },
    );
    if (!same(ours, theirs) || BigInt(ours.r) !== floor.r || BigInt(ours.s) !== floor.s) {
      throw new Error(`twapOrder signatures differ at nonce ${nonce}: the comparison would not be fair`);
    }
    const action = { ...delegateAction, nonce };
    const oursU = await signUserSignedAction(signer, action, "tokenDelegate");
    const theirsU = await peerSignUser({ wallet, action: action as never, types: TokenDelegateTypes });
    const floorU = secp256k1.sign(userSignedActionDigest(action, "tokenDelegate"), keyBytes, {
      prehash: false,
      lowS: true,
    });
    if (!same(oursU, theirsU) || BigInt(oursU.r) !== floorU.r || BigInt(oursU.s) !== floorU.s) {
      throw new Error(`tokenDelegate signatures differ at nonce ${nonce}: the comparison would not be fair`);
    }
  }
  notes.push(
    "hlbot, the peer and the floor produced identical r, s, v for 8 nonces of each action (checked before timing)",
  );

  // ---- timing ----
  // Each iteration signs a fresh nonce, as a bot does, so nothing can be served from a cache of digests.
  let n = NONCE0;
  const floorDigest = l1ActionDigest({ action: twapAction, nonce: NONCE0, network: "mainnet" });
  const delegateMsg = { ...delegateAction };
  const tasks: Record<string, () => unknown> = {
    "hlbot twapOrder": () =>
      signL1Action(signer, { action: twapAction, nonce: ++n, expiresAfter: n + 60_000, network: "mainnet" }),
    "peer twapOrder": () =>
      peerSignL1({ wallet, action: twapAction, nonce: ++n, expiresAfter: n + 60_000, isTestnet: false }),
    "hlbot tokenDelegate": () => {
      delegateMsg.nonce = ++n;
      return signUserSignedAction(signer, delegateMsg, "tokenDelegate");
    },
    "peer tokenDelegate": () => {
      delegateMsg.nonce = ++n;
      return peerSignUser({ wallet, action: delegateMsg as never, types: TokenDelegateTypes });
    },
    floor: () => secp256k1.sign(floorDigest, keyBytes, { prehash: false, lowS: true }),
  };

  // Several short rounds, tasks interleaved, then the median of the per-round medians: drift of a shared
  // machine hits every task alike instead of whichever happened to run last.
  const rounds = o.quick ? 1 : 5;
  const perRound: Record<string, number[]> = {};
  for (let round = 0; round < rounds; round++) {
    const bench = new Bench({
      time: o.quick ? 40 : 700,
      warmupTime: o.quick ? 20 : 200,
      iterations: o.quick ? 10 : 50,
      warmupIterations: o.quick ? 5 : 20,
    });
    for (const [name, fn] of Object.entries(tasks)) bench.add(name, fn);
    await bench.run();
    for (const task of bench.tasks) {
      const r = task.result;
      if (r.state !== "completed") throw new Error(`signing task ${task.name} did not complete (${r.state})`);
      const list = perRound[task.name] ?? [];
      list.push(r.latency.p50);
      perRound[task.name] = list;
    }
  }
  const opsPerSec = (name: string) => 1000 / median(perRound[name] ?? []);
  const floor = opsPerSec("floor");

  const figures: Figure[] = [];
  let id = 0;
  for (const action of ["twapOrder", "tokenDelegate"] as const) {
    const ours = opsPerSec(`hlbot ${action}`);
    const peer = opsPerSec(`peer ${action}`);
    const kind = action === "twapOrder" ? "L1" : "user-signed";
    figures.push({
      id: `1${"abcd"[id++]}`,
      name: `${action} (${kind}) signatures/s vs peer`,
      value: ours,
      unit: "sig/s",
      baseline: { name: "@nktkas/hyperliquid + ethers", value: peer },
      ratio: ours / peer,
      ratioLabel: "hlbot/peer",
      target: { text: "≥ 1.5×", met: ours / peer >= 1.5 },
    });
    figures.push({
      id: `1${"abcd"[id++]}`,
      name: `${action} (${kind}) signatures/s vs floor`,
      value: ours,
      unit: "sig/s",
      baseline: { name: "bare noble secp256k1.sign", value: floor },
      ratio: floor / ours,
      ratioLabel: "floor/hlbot",
      target: { text: "≤ 1.5×", met: floor / ours <= 1.5 },
    });
  }
  notes.push(
    `median of ${rounds} round(s) of tinybench per-iteration p50 latencies; one signature per iteration, nonce incremented each time`,
  );
  return { title: "1. Signing throughput", figures, notes };
}
