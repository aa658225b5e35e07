// Fixtures for exchange-client tests: test keys (public test keys, never funded), a live client wired to
// a scripted 127.0.0.1 server through the real HttpTransport, and a tiny "venue" script that remembers
// the nonces it has processed, so a resend of a processed body is answered "duplicate nonce" as the
// real venue does.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStateDb, type StateDatabase } from "../../src/lib/stateDb.js";
import { ExchangeClient, type ExchangeClientOptions } from "../../src/venue/exchange/client.js";
import { resolveEndpoints } from "../../src/venue/networks.js";
import { NonceStore, SignerQueue } from "../../src/venue/nonces.js";
import { privateKeySigner, type Signer } from "../../src/venue/signing/signer.js";
import { HttpTransport } from "../../src/venue/transport/http.js";
import type { RecordedRequest, Reply, ReplyScript, TestHttpServer } from "./httpServer.js";
import { startHttpServer } from "./httpServer.js";

/** Test keys: the first of the public Hardhat/Anvil set, and an arbitrary one. Never fund them. */
export const ACCOUNT_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
export const ACCOUNT_ADDRESS = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
export const AGENT_KEY = "0x59c6995e998f97a5a0044966f0945389dc9c86dae88c7a8412f4603b6b78690d";
export const AGENT_ADDRESS = "0x2b5907e591d106e1954b05dc9ca52c4322836e44";
export const VALIDATOR = "0x5ac99df645f3414876c816caa18b2d234024b487";

export function accountSigner(): Signer {
  return privateKeySigner(ACCOUNT_KEY);
}
export function agentSigner(): Signer {
  return privateKeySigner(AGENT_KEY);
}

export type Cleanup = () => Promise<void> | void;

export interface LiveSetup {
  server: TestHttpServer;
  transport: HttpTransport;
  client: ExchangeClient;
  nonces: NonceStore;
  db: StateDatabase;
  stateDir: string;
}

type Overrides = Partial<Omit<ExchangeClientOptions, "mode" | "transport" | "nonces">> & {
  nonces?: NonceStore;
};

/** A fresh state folder with a NonceStore. */
export async function tempNonceStore(
  cleanups: Cleanup[],
  clock?: () => number,
): Promise<{ nonces: NonceStore; db: StateDatabase; stateDir: string }> {
  const stateDir = mkdtempSync(join(tmpdir(), "hlbot-exchange-"));
  const db = await openStateDb({ dir: stateDir });
  cleanups.push(() => {
    db.close();
    rmSync(stateDir, { recursive: true, force: true });
  });
  return { nonces: new NonceStore(db, clock ? { clock } : {}), db, stateDir };
}

/** A live client talking to a scripted server via the real HttpTransport (no budget, short timeout). */
export async function liveSetup(
  cleanups: Cleanup[],
  script: ReplyScript,
  overrides: Overrides = {},
  transportTimeoutMs = 2_000,
): Promise<LiveSetup> {
  const server = await startHttpServer(script);
  cleanups.push(() => server.close());
  const transport = new HttpTransport({
    endpoints: resolveEndpoints("testnet", server.url),
    budget: null,
    timeoutMs: transportTimeoutMs,
  });
  cleanups.push(() => transport.close());
  const store = overrides.nonces
    ? { nonces: overrides.nonces, db: undefined, stateDir: "" }
    : await tempNonceStore(cleanups, overrides.clock);
  const client = new ExchangeClient({
    network: "testnet",
    signer: accountSigner(),
    queue: new SignerQueue(),
    clockSkew: false,
    ...overrides,
    resend: { baseDelayMs: 5, maxDelayMs: 20, rateLimitDelayMs: 5, ...overrides.resend },
    nonces: store.nonces,
    mode: "live",
    transport,
  });
  return {
    server,
    transport,
    client,
    nonces: store.nonces,
    db: store.db as StateDatabase,
    stateDir: store.stateDir,
  };
}

/**
 * A minimal venue: answers each body with `answer` the first time its nonce is seen (after `delayMs`
 * on the copies listed in `slow`), and "duplicate nonce" to any later copy, like the real venue.
 */
export function nonceTrackingVenue(
  answer: (request: RecordedRequest) => Reply,
  options: { slow?: number[]; delayMs?: number } = {},
): ReplyScript {
  const seen = new Set<number>();
  return (request, index) => {
    const nonce = (request.json as { nonce?: number } | undefined)?.nonce;
    if (typeof nonce === "number" && seen.has(nonce)) {
      return { json: { status: "err", response: `Invalid nonce: duplicate nonce ${nonce}` } };
    }
    if (typeof nonce === "number") seen.add(nonce);
    const reply = answer(request);
    return options.slow?.includes(index) ? { ...reply, delayMs: options.delayMs ?? 1_000 } : reply;
  };
}

export const OK_DEFAULT = { status: "ok", response: { type: "default" } } as const;
export function twapRunning(twapId: number) {
  return { status: "ok", response: { type: "twapOrder", data: { status: { running: { twapId } } } } };
}
