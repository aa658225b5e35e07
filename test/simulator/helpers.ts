// Helpers of the simulator's HTTP tests: a simulator on 127.0.0.1 with the test scenario, hlbot's own
// transport and signing to talk to it, and a raw POST for what a well-behaved client never sends.

import { type Simulator, type SimulatorOptions, startSimulator } from "../../src/simulator/index.js";
import { type NetworkName, resolveEndpoints } from "../../src/venue/networks.js";
import { signL1Action, signUserSignedAction } from "../../src/venue/signing/index.js";
import { privateKeySigner } from "../../src/venue/signing/signer.js";
import type { UserSignedKind } from "../../src/venue/signing/userSigned.js";
import { HttpTransport } from "../../src/venue/transport/http.js";
import { testScenario } from "./fixtures.js";

export type HttpSim = Simulator & { url: string; port: number };

/** A simulator on a free port with the test scenario, no rate limit unless asked. */
export function startTestSim(options: SimulatorOptions = {}): Promise<HttpSim> {
  return startSimulator({ scenario: testScenario(), rateLimit: false, ...options });
}

export function transportFor(sim: HttpSim, network: NetworkName = "testnet"): HttpTransport {
  return new HttpTransport({
    endpoints: resolveEndpoints(network, sim.url),
    budget: null,
    retry: { attempts: 1 },
    timeoutMs: 5_000,
  });
}

export interface L1Extras {
  vaultAddress?: string | null;
  expiresAfter?: number | null;
  network?: NetworkName;
}

/** A signed /exchange body of an L1 action. */
export async function l1Body(
  key: string,
  action: Record<string, unknown>,
  nonce: number,
  extras: L1Extras = {},
): Promise<Record<string, unknown>> {
  const signature = await signL1Action(privateKeySigner(key), {
    action,
    nonce,
    network: extras.network ?? "testnet",
    vaultAddress: extras.vaultAddress ?? null,
    expiresAfter: extras.expiresAfter ?? null,
  });
  const body: Record<string, unknown> = { action, nonce, signature };
  if (extras.vaultAddress !== undefined) body.vaultAddress = extras.vaultAddress;
  if (extras.expiresAfter !== undefined) body.expiresAfter = extras.expiresAfter;
  return body;
}

/** A signed /exchange body of a user-signed action (outer nonce = the action's). */
export async function userBody(key: string, action: object): Promise<Record<string, unknown>> {
  const a = action as Record<string, unknown>;
  const signature = await signUserSignedAction(privateKeySigner(key), a, a.type as UserSignedKind);
  return { action: a, nonce: a.nonce, signature };
}

/** Header fields of a user-signed action for the testnet simulator. */
export function userHeader(nonce: number) {
  return { signatureChainId: "0x66eee", hyperliquidChain: "Testnet", nonce } as const;
}

export interface RawAnswer {
  status: number;
  contentType: string | null;
  date: string | null;
  text: string;
  json: unknown;
}

/** A raw POST (any body text), for 422/429/fault tests. */
export async function post(sim: HttpSim, path: string, body: unknown): Promise<RawAnswer> {
  const res = await fetch(`${sim.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return {
    status: res.status,
    contentType: res.headers.get("content-type"),
    date: res.headers.get("date"),
    text,
    json,
  };
}

/** POSTs a signed body to /exchange and returns the parsed answer. */
export async function send(sim: HttpSim, body: Record<string, unknown>): Promise<unknown> {
  const answer = await post(sim, "/exchange", body);
  if (answer.status !== 200) throw new Error(`HTTP ${answer.status}: ${answer.text}`);
  return answer.json;
}
