// The corpus of real-shaped venue answers (test/fixtures/venue-answers/<query>/*.json, sources in
// SOURCES.md there): every schema accepts every answer, also with an extra field added to every object
// (the venue adds fields); `unknown-*` answers carry a value hlbot does not know and are accepted and
// reported; strict fields still refuse a wrong type with its path (issue #11).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BadResponseError } from "../../../src/lib/errors.js";
import { parseJson } from "../../../src/lib/json.js";
import {
  INFO_METHODS,
  INFO_TYPES,
  type InfoType,
  isInfoType,
} from "../../../src/venue/info/methods/index.js";
import { resetUnknownReports, type UnknownValue } from "../../../src/venue/info/tolerant.js";
import { parseResponse } from "../../../src/venue/info/validate.js";
import { REPO_ROOT } from "../../helpers/build.js";

const CORPUS = join(REPO_ROOT, "test/fixtures/venue-answers");

const answers: Array<{ query: InfoType; file: string; json: unknown }> = readdirSync(CORPUS, {
  withFileTypes: true,
})
  .filter((d) => d.isDirectory())
  .flatMap((d) =>
    readdirSync(join(CORPUS, d.name))
      .filter((f) => f.endsWith(".json"))
      .map((file) => {
        if (!isInfoType(d.name)) throw new Error(`${d.name} is not an info query`);
        return { query: d.name, file, json: parseJson(readFileSync(join(CORPUS, d.name, file), "utf8")) };
      }),
  );

function load(query: InfoType, file: string): unknown {
  const a = answers.find((x) => x.query === query && x.file === file);
  if (!a) throw new Error(`no ${query}/${file}`);
  return structuredClone(a.json);
}

function parse(query: InfoType, json: unknown): { unknown: UnknownValue[]; result: unknown } {
  const unknown: UnknownValue[] = [];
  const result = parseResponse(INFO_METHODS[query].response, json, {
    what: query,
    onUnknown: (_m, u) => unknown.push(u),
  });
  return { unknown, result };
}

/** Adds `hlbotTestExtra` to every object of an answer (records keyed by coin excepted). */
function withExtraFields(value: unknown, isRecord = false): unknown {
  if (Array.isArray(value)) return value.map((v) => withExtraFields(v));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = withExtraFields(v);
  if (!isRecord) out.hlbotTestExtra = { added: "by the venue later", n: [1, 2] };
  return out;
}

afterEach(() => resetUnknownReports());

describe("venue answer corpus", () => {
  it("has answers for all 21 info queries", () => {
    expect(new Set(answers.map((a) => a.query))).toEqual(new Set(INFO_TYPES));
    expect(INFO_TYPES).toHaveLength(21);
  });

  it.each(answers.map((a) => [`${a.query}/${a.file}`, a] as const))("accepts %s", (_name, a) => {
    const { unknown } = parse(a.query, structuredClone(a.json));
    // Only the `unknown-*` answers carry values hlbot does not know; the others are fully known.
    if (a.file.startsWith("unknown-")) expect(unknown.length).toBeGreaterThan(0);
    else expect(unknown).toEqual([]);
  });

  it.each(answers.map((a) => [`${a.query}/${a.file}`, a] as const))(
    "accepts %s with an extra field in every object, and keeps it",
    (_name, a) => {
      const { result } = parse(a.query, withExtraFields(structuredClone(a.json), a.query === "allMids"));
      if (a.query !== "allMids" && result !== null && typeof result === "object" && !Array.isArray(result))
        expect(result).toHaveProperty("hlbotTestExtra");
    },
  );
});

/** A parsed answer, mutated by path in the table below (a test-only loose view of JSON). */
// biome-ignore lint/suspicious/noExplicitAny: the table pokes arbitrary JSON paths.
type Json = any;

/** Strict fields (hlbot acts on them): a wrong type is refused, naming its path. */
const STRICT: Array<[InfoType, string, (j: Json) => void, string]> = [
  [
    "spotClearinghouseState",
    "portfolio-margin.json",
    (j) => (j.balances[1].total = 2000),
    "balances.1.total",
  ],
  ["spotClearinghouseState", "portfolio-margin.json", (j) => (j.balances[0].hold = null), "balances.0.hold"],
  ["spotClearinghouseState", "portfolio-margin.json", (j) => delete j.balances[0].token, "balances.0.token"],
  ["delegatorSummary", "docs-example.json", (j) => (j.undelegated = 0), "undelegated"],
  ["delegations", "docs-example.json", (j) => (j[0].lockedUntilTimestamp = "soon"), "0.lockedUntilTimestamp"],
  ["delegations", "docs-example.json", (j) => (j[0].validator = "ValiDAO"), "0.validator"],
  ["validatorSummaries", "example.json", (j) => (j[0].isJailed = "no"), "0.isJailed"],
  [
    "validatorSummaries",
    "example.json",
    (j) => (j[1].stats[0][1].uptimeFraction = 1),
    "1.stats.0.1.uptimeFraction",
  ],
  ["twapHistory", "statuses.json", (j) => (j[0].state.executedSz = 0.5), "0.state.executedSz"],
  ["twapHistory", "statuses.json", (j) => (j[1].state.side = "buy"), "1.state.side"],
  ["twapHistory", "statuses.json", (j) => (j[0].status.status = 1), "0.status.status"],
  ["allMids", "with-spot.json", (j) => (j["@107"] = 38.1), "@107"],
  [
    "spotMeta",
    "python-sdk-mainnet-trimmed.json",
    (j) => (j.tokens[2].szDecimals = "2"),
    "tokens.2.szDecimals",
  ],
  ["spotMeta", "python-sdk-mainnet-trimmed.json", (j) => (j.universe[1].tokens = [150]), "universe.1.tokens"],
  ["userToMultiSigSigners", "multi-sig.json", (j) => (j.threshold = "2"), "threshold"],
  ["userFees", "trading-user-link.json", (j) => (j.userSpotCrossRate = 0.00049), "userSpotCrossRate"],
  [
    "userFees",
    "unknown-link-and-trial.json",
    (j) => (j.stakingLink.stakingUser = "0x12"),
    "stakingLink.stakingUser",
  ],
  [
    "delegatorHistory",
    "python-sdk-mainnet.json",
    (j) => (j[0].delta.delegate.amount = 89968),
    "0.delta.delegate.amount",
  ],
  [
    "delegatorHistory",
    "withdrawal-phases.json",
    (j) => (j[0].delta.withdrawal.phase = 1),
    "0.delta.withdrawal.phase",
  ],
  ["userRole", "agent.json", (j) => delete j.data, "data"],
  ["userRole", "sub-account.json", (j) => (j.data.master = 7), "data.master"],
  [
    "referral",
    "docs-example-ready.json",
    (j) => (j.referrerState.data.nReferrals = "1"),
    "referrerState.data.nReferrals",
  ],
  ["subAccounts2", "dex-abstraction.json", (j) => (j[0].subAccountUser = null), "0.subAccountUser"],
  ["subAccounts2", "dex-abstraction.json", (j) => (j[0].abstraction = 3), "0.abstraction"],
  ["candleSnapshot", "spot-hype-1h.json", (j) => (j[1].o = 20.866), "1.o"],
  ["candleSnapshot", "spot-hype-1h.json", (j) => delete j[0].c, "0.c"],
  ["candleSnapshot", "spot-hype-1h.json", (j) => (j[2].t = "1735696800000"), "2.t"],
];

describe("strict fields", () => {
  it.each(STRICT.map(([q, f, mutate, path]) => [`${q}/${f} → ${path}`, q, f, mutate, path] as const))(
    "refuses %s",
    (_name, query, file, mutate, path) => {
      const json = load(query, file);
      mutate(json);
      let err: unknown;
      try {
        parse(query, json);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(BadResponseError);
      expect((err as BadResponseError).issues.map((i) => i.path)).toContain(path);
    },
  );
});
