// Fault injection per endpoint, deterministic from the seed: each endpoint has its own random stream and
// every request draws the same number of values whatever the knobs say, so the n-th request to an
// endpoint meets the same fate in every run with the same seed. 5xx and 429 faults refuse the request
// before it takes effect; dropped connections, non-JSON and schema-violating bodies happen after it
// took effect (the harder case for a client: the action happened but the answer is lost or garbled).
import { Prng } from "./prng.js";
import { type FaultKnobs, type FaultKnobsInput, type FaultsInput, faultKnobsSchema } from "./scenario.js";

export type Endpoint = "info" | "exchange" | "explorer";
export const ENDPOINTS: readonly Endpoint[] = ["info", "exchange", "explorer"];

export interface FaultDecision {
  serverError: boolean;
  rateLimit: boolean;
  latencyMs: number;
  drop: boolean;
  nonJson: boolean;
  badSchema: boolean;
}

export const NO_FAULT: FaultDecision = {
  serverError: false,
  rateLimit: false,
  latencyMs: 0,
  drop: false,
  nonJson: false,
  badSchema: false,
};

export class FaultInjector {
  private knobs: Record<Endpoint, FaultKnobs>;
  private given: FaultsInput;
  private readonly streams: Record<Endpoint, Prng>;

  constructor(seed: number, faults: FaultsInput = {}) {
    this.streams = {
      info: new Prng(seed, "faults:info"),
      exchange: new Prng(seed, "faults:exchange"),
      explorer: new Prng(seed, "faults:explorer"),
    };
    this.knobs = resolve(faults);
    this.given = faults;
  }

  /** The configuration as last given (before defaults), to restore it after a timed outage. */
  get input(): FaultsInput {
    return this.given;
  }

  /** Replaces the fault configuration (`{}` turns every fault off). */
  set(faults: FaultsInput): void {
    this.knobs = resolve(faults);
    this.given = faults;
  }

  /** Current knobs per endpoint. */
  get config(): Readonly<Record<Endpoint, FaultKnobs>> {
    return this.knobs;
  }

  /** The fate of the next request to `endpoint`. */
  decide(endpoint: Endpoint): FaultDecision {
    const k = this.knobs[endpoint];
    const r = this.streams[endpoint];
    const draws = [r.next(), r.next(), r.next(), r.next(), r.next(), r.next()] as const;
    const [lo, hi] = typeof k.latencyMs === "number" ? [k.latencyMs, k.latencyMs] : k.latencyMs;
    return {
      rateLimit: draws[0] < k.rateLimitRate,
      serverError: draws[1] < k.serverErrorRate,
      drop: draws[2] < k.dropRate,
      nonJson: draws[3] < k.nonJsonRate,
      badSchema: draws[4] < k.badSchemaRate,
      latencyMs: Math.round(lo + (hi - lo) * draws[5]),
    };
  }
}

function resolve(faults: FaultsInput): Record<Endpoint, FaultKnobs> {
  const all: FaultKnobsInput = faults.all ?? {};
  const out = {} as Record<Endpoint, FaultKnobs>;
  for (const e of ENDPOINTS) out[e] = faultKnobsSchema.parse({ ...all, ...(faults[e] ?? {}) });
  return out;
}
