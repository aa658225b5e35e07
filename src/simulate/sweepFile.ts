// The sweep file of `hlbot simulate --sweep` and the plan made from it. The file names a bot file, a
// scenario, a period, the seed or seeds (price paths) every point runs on, the figure to rank by and a
// grid: dotted key paths into the bot configuration (`limits.maxOrderUsd`, or
// `strategies.<name>.params.band` for the strategy of that name), each with a list of values. It is
// read with the configuration's own YAML reader (src/engine/config/source.ts) and its problems are
// reported like the configuration's: file, line, key path, every problem at once.
// Planning resolves each key against the bot file and its strategy files (a key that is in neither the
// file nor its schema is an error, so a typo never sweeps nothing), expands the grid into points, and
// loads every point's configuration through the normal loader and schemas before anything runs.

import { dirname, resolve } from "node:path";
import { isAlias, isMap, isScalar, isSeq } from "yaml";
import { z } from "zod";
import {
  type ConfigIssue,
  ConfigIssuesError,
  didYouMean,
  issuesFromZod,
  knownKeysAt,
} from "../engine/config/issues.js";
import { displayPath, type Env, loadConfig, MAX_CONFIG_BYTES } from "../engine/config/loader.js";
import { botConfigSchema, strategyFileSchema } from "../engine/config/schema.js";
import { configWarnings } from "../engine/config/warnings.js";
import { Decimal } from "../lib/decimal.js";
import { ConfigError, ValidationError, type ValidationIssue } from "../lib/errors.js";
import { readRegularTextFile } from "../lib/readText.js";
import {
  formatKeyPath,
  type KeyPath,
  keepExactNumbers,
  lineOf,
  parseYamlSource,
  type YamlSource,
} from "../lib/yamlSource.js";
import { RANK_FIGURE_NAMES, type RankFigure, type SweepEdit, sweepEditHook } from "./sweepPoint.js";

/** Most points one sweep may have. */
export const MAX_SWEEP_POINTS = 1_000;
/** Most seeds (price paths) one sweep may run every point on. */
export const MAX_SWEEP_SEEDS = 100;
/** The largest seed (the scenario's seed is a 32-bit unsigned integer). */
export const MAX_SEED = 2 ** 32 - 1;

export interface SweepFile {
  /** Absolute path. */
  path: string;
  /** As shown in messages. */
  file: string;
  /** Absolute paths (relative ones in the file are relative to the sweep file). */
  config: string | undefined;
  scenario: string | undefined;
  days: number | undefined;
  /** As written; the command line reads them like --from and --to. */
  from: string | undefined;
  to: string | undefined;
  /**
   * The seeds every point runs on, in the file's order: `seed: 42` is [42], `seed: [42, 7, 11]` three
   * price paths; undefined: the scenario's seed.
   */
  seeds: number[] | undefined;
  rank: RankFigure;
  grid: Array<{ key: string; values: unknown[] }>;
  /** The parsed file, for locating a key in messages. */
  src: YamlSource;
}

const sweepSchema = z.strictObject({
  config: z.string().min(1).optional().describe("the bot file, relative to the sweep file"),
  scenario: z.string().min(1).optional().describe("the scenario file, relative to the sweep file"),
  days: z.number().positive().max(3660).optional(),
  from: z.string().min(1).optional(),
  to: z.string().min(1).optional(),
  // One seed or a list of them: checked by seedIssues, which names the item of a list that is wrong.
  seed: z.unknown().optional(),
  rank: z.enum(RANK_FIGURE_NAMES as [RankFigure, ...RankFigure[]]).default("vsBenchmark"),
  grid: z.record(
    z.string().min(1),
    z.array(z.unknown(), { error: "expected a list of values, e.g. [0.02, 0.05]" }),
  ),
});

/** Where a key of the sweep file is, for a ConfigIssue. */
export function sweepIssue(sweep: Pick<SweepFile, "src">, path: KeyPath, message: string): ConfigIssue {
  const parent = path.slice(0, -1);
  const last = path[path.length - 1];
  return {
    file: sweep.src.file,
    line: typeof last === "string" ? lineOf(sweep.src, parent, last) : lineOf(sweep.src, path),
    keyPath: formatKeyPath(path),
    message,
  };
}

/** What is wrong with `v` as a seed, or undefined. */
function seedProblem(v: unknown): string | undefined {
  if (typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= MAX_SEED) return undefined;
  const got =
    v === null || v === undefined
      ? "nothing"
      : Array.isArray(v)
        ? "a list"
        : typeof v === "object"
          ? "a mapping"
          : typeof v === "string"
            ? `the string ${JSON.stringify(v)}`
            : String(v);
  return `expected a whole number from 0 to ${MAX_SEED}, got ${got}`;
}

/**
 * The seeds of a sweep file's `seed:` (one seed, or a non-empty list of distinct seeds) or its problems,
 * each at its own item.
 */
function seedIssues(
  sweep: Pick<SweepFile, "src">,
  seed: unknown,
): { seeds: number[] | undefined; issues: ConfigIssue[] } {
  if (seed === undefined) return { seeds: undefined, issues: [] };
  if (!Array.isArray(seed)) {
    const problem = seedProblem(seed);
    return problem === undefined
      ? { seeds: [seed as number], issues: [] }
      : {
          seeds: undefined,
          issues: [sweepIssue(sweep, ["seed"], `${problem}; or a list of seeds such as [42, 7, 11]`)],
        };
  }
  const issues: ConfigIssue[] = [];
  if (seed.length === 0)
    issues.push(sweepIssue(sweep, ["seed"], "expected at least one seed, e.g. [42, 7, 11]"));
  if (seed.length > MAX_SWEEP_SEEDS)
    issues.push(sweepIssue(sweep, ["seed"], `${seed.length} seeds; a sweep has at most ${MAX_SWEEP_SEEDS}`));
  const seen = new Set<unknown>();
  for (const [i, v] of seed.entries()) {
    const problem = seedProblem(v);
    if (problem !== undefined) issues.push(sweepIssue(sweep, ["seed", i], problem));
    else if (seen.has(v)) issues.push(sweepIssue(sweep, ["seed", i], `${v} is listed twice`));
    seen.add(v);
  }
  return { seeds: issues.length > 0 ? undefined : (seed as number[]), issues };
}

/**
 * The seeds of `--seeds 42,7,11`: whole numbers separated by commas, at least one, each once (a
 * ValidationError, exit 2, otherwise).
 */
export function parseSeeds(text: string, flag = "--seeds"): number[] {
  const items = text.split(",").map((x) => x.trim());
  const issues: ValidationIssue[] = [];
  const seeds: number[] = [];
  for (const item of items) {
    const v = /^\d+$/.test(item) ? Number(item) : Number.NaN;
    if (!(v <= MAX_SEED)) {
      issues.push({
        path: flag,
        message: `expected seeds (whole numbers from 0 to ${MAX_SEED}) separated by commas, e.g. 42,7,11; got ${JSON.stringify(item === "" ? text : item)}`,
      });
      break;
    }
    if (seeds.includes(v)) issues.push({ path: flag, message: `${v} is listed twice` });
    seeds.push(v);
  }
  if (issues.length === 0 && seeds.length > MAX_SWEEP_SEEDS)
    issues.push({ path: flag, message: `${seeds.length} seeds; a sweep has at most ${MAX_SWEEP_SEEDS}` });
  if (issues.length > 0) throw new ValidationError(issues);
  return seeds;
}

/** What a file given as a sweep is when it is a bot, strategy or scenario file, in a sentence. */
function notASweep(data: object): string | undefined {
  if ("grid" in data) return undefined;
  const is =
    "tokens" in data || "pairs" in data
      ? "a scenario of the simulator (give it with --scenario)"
      : "kind" in data && "schedule" in data
        ? "a strategy file (a bot file lists it under strategies:)"
        : "strategies" in data || "network" in data
          ? "a bot file (give it with --config)"
          : undefined;
  return is === undefined
    ? undefined
    : `this is ${is}, not a sweep file: a sweep file has grid: (the values to try) and names its bot file with config: (see README, Parameter sweeps)`;
}

/** Reads and checks a sweep file (ConfigError, exit 2, naming the file, line and key). */
export async function readSweepFile(path: string): Promise<SweepFile> {
  const abs = resolve(path);
  const file = displayPath(abs);
  const text = readRegularTextFile(abs, MAX_CONFIG_BYTES, {
    shown: file,
    missing: "sweep file not found",
    folder: "is not a regular file; expected a sweep YAML file",
    notRegular: "is not a regular file; expected a sweep YAML file",
    tooLarge: (size, max) => `is ${size} bytes; a sweep file is at most ${max} bytes`,
  });
  const src = parseYamlSource(file, text);
  keepExactNumbers(src);
  const data: unknown = src.doc.toJS({ maxAliasCount: 1000 });
  if (data === null || data === undefined || typeof data !== "object" || Array.isArray(data))
    throw new ConfigError("expected a mapping with at least grid: (see README, Parameter sweeps)", {
      file,
      line: 1,
    });
  const parsed = sweepSchema.safeParse(data);
  if (!parsed.success) {
    // Another of hlbot's files given as the sweep: one sentence, not the schema's complaints (a
    // documentation trial: "grid: is required; network: unknown key …" for a bot file).
    const other = notASweep(data);
    if (other !== undefined) throw new ConfigError(other, { file, line: 1 });
    throw new ConfigIssuesError(issuesFromZod(src, parsed.error.issues, sweepSchema, data));
  }
  const s = parsed.data;
  const sweep = { src };
  const { seeds, issues } = seedIssues(sweep, s.seed);
  if (s.days !== undefined && s.to !== undefined)
    issues.push(sweepIssue(sweep, ["to"], "give either to: or days:, not both"));
  const grid = Object.entries(s.grid).map(([key, values]) => ({ key, values }));
  if (grid.length === 0)
    issues.push(
      sweepIssue(
        sweep,
        ["grid"],
        "is empty: list at least one key path with its values, e.g. limits.maxOrderUsd: [1000, 5000]",
      ),
    );
  let points = 1;
  for (const { key, values } of grid) {
    points *= values.length;
    if (values.length === 0) issues.push(sweepIssue(sweep, ["grid", key], "expected at least one value"));
    const seen = new Set<string>();
    for (const [i, v] of values.entries()) {
      if (v === null || v === undefined)
        issues.push(sweepIssue(sweep, ["grid", key, i], "a value may not be empty (null)"));
      const text = JSON.stringify(v);
      // A number written as a string is the same value to the config's decimals: 0.05, "0.05" and
      // "0.050" ran as three identical points (a sweep trial).
      const same = sameValueKey(v);
      if (seen.has(same)) issues.push(sweepIssue(sweep, ["grid", key, i], `${text} is listed twice`));
      seen.add(same);
    }
  }
  if (points > MAX_SWEEP_POINTS)
    issues.push(
      sweepIssue(
        sweep,
        ["grid"],
        `${grid.map((g) => g.values.length).join(" × ")} = ${points} points; a sweep has at most ${MAX_SWEEP_POINTS}`,
      ),
    );
  if (issues.length > 0) throw new ConfigIssuesError(issues);
  const dir = dirname(abs);
  return {
    path: abs,
    file,
    config: s.config === undefined ? undefined : resolve(dir, s.config),
    scenario: s.scenario === undefined ? undefined : resolve(dir, s.scenario),
    days: s.days,
    from: s.from,
    to: s.to,
    seeds,
    rank: s.rank,
    grid,
    src,
  };
}

// ---- planning ----

export interface SweepKey {
  /** As written in the grid. */
  key: string;
  /** The shortest trailing part of the key that tells it from the others ("band"), for headings. */
  label: string;
  /** The strategy whose file holds it; undefined: the bot file. */
  strategy: string | undefined;
  /** Inside that file. */
  path: Array<string | number>;
  values: unknown[];
}

export interface SweepPoint {
  /** 1-based, in grid order (the first key varies slowest). */
  index: number;
  /** One value per key, in the keys' order. */
  values: unknown[];
  edits: SweepEdit[];
  /**
   * What `config validate` warns of for this point's configuration and not for the bot file as it is
   * (a sweep trial: a point whose maxOrderUsd blocked every TWAP was ranked best, told nowhere).
   */
  warnings?: string[];
}

export interface SweepPlan {
  sweep: SweepFile;
  /** Absolute path of the bot file every point starts from. */
  configPath: string;
  keys: SweepKey[];
  points: SweepPoint[];
  /** What `config validate` warns of for the bot file as it is (every point inherits it). */
  warnings?: string[];
  /** The bot file's enabled strategies and their schedules, as it is (for the replay notes). */
  schedules?: Array<{ name: string; schedule: string }>;
}

/** A grid value as shown in tables and messages. */
export function valueText(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** "band=0.05, minutes=30". */
export function pointText(plan: Pick<SweepPlan, "keys">, point: Pick<SweepPoint, "values">): string {
  return plan.keys.map((k, i) => `${k.label}=${valueText(point.values[i])}`).join(", ");
}

function shortLabels(keys: string[]): string[] {
  const parts = keys.map((k) => k.split("."));
  return parts.map((p, i) => {
    for (let n = 1; n < p.length; n++) {
      const tail = p.slice(-n).join(".");
      if (parts.every((q, j) => j === i || q.slice(-n).join(".") !== tail)) return tail;
    }
    return keys[i]!;
  });
}

type Schema = typeof botConfigSchema | typeof strategyFileSchema;

/**
 * The key path of `segments` in a file, with list indexes as numbers: each segment must be in the file
 * as written or, where the file stops, a key its schema accepts there (a default being overridden).
 * Returns a problem in words otherwise.
 */
function resolveKey(src: YamlSource, schema: Schema, segments: string[]): Array<string | number> | string {
  const data: unknown = src.doc.toJS({ maxAliasCount: 1000 });
  let node: unknown = src.doc.contents;
  const path: Array<string | number> = [];
  let inFile = true;
  const where = (p: KeyPath) =>
    `${src.file}:${lineOf(src, p)}${p.length > 0 ? ` (${formatKeyPath(p)})` : ""}`;
  for (const seg of segments) {
    if (inFile) {
      if (isAlias(node)) node = node.resolve(src.doc);
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === seg);
        if (pair) {
          path.push(seg);
          node = pair.value;
          continue;
        }
      } else if (isSeq(node)) {
        const i = /^\d+$/.test(seg) ? Number(seg) : Number.NaN;
        if (!(i < node.items.length))
          return `${where(path)} is a list of ${node.items.length} item(s): expected an index from 0 to ${node.items.length - 1}, got "${seg}"`;
        path.push(i);
        node = node.items[i];
        continue;
      } else if (node !== null && node !== undefined && path.length > 0) {
        return `${where(path)} is a single value, not a mapping with "${seg}" in it`;
      }
      inFile = false;
    }
    const known = knownKeysAt(schema, path, data);
    if (!known.includes(seg)) {
      const inData = (() => {
        let d = data;
        for (const p of path)
          d = d !== null && typeof d === "object" ? (d as Record<string, unknown>)[p] : undefined;
        return d !== null && typeof d === "object" ? Object.keys(d) : [];
      })();
      const candidates = [...new Set([...inData, ...known])];
      const guess = didYouMean(seg, candidates);
      const at = path.length === 0 ? `${src.file} has no key "${seg}"` : `${where(path)} has no key "${seg}"`;
      return `${at}${guess ? ` (did you mean "${guess}"?)` : candidates.length > 0 ? `; its keys: ${candidates.join(", ")}` : ""}`;
    }
    path.push(seg);
  }
  return path;
}

/**
 * Resolves the grid against the bot file and its strategies, expands it, and loads every point's
 * configuration through the loader: any problem is a ConfigIssuesError (exit 2) before a run starts.
 */
export async function planSweep(sweep: SweepFile, configPath: string, env: Env): Promise<SweepPlan> {
  // The base configuration must load as it is; the hook keeps each file's parsed YAML.
  let botSrc: YamlSource | undefined;
  const strategySrc = new Map<string, YamlSource>();
  const base = await loadConfig(configPath, env, {
    edit: (src, role) => {
      if (role === "bot") botSrc = src;
      else strategySrc.set(String(src.doc.get("name")), src);
    },
  });
  const names = [...strategySrc.keys()].sort((a, b) => b.length - a.length);
  const issues: ConfigIssue[] = [];
  const labels = shortLabels(sweep.grid.map((g) => g.key));
  const keys: SweepKey[] = [];
  for (const [i, { key, values }] of sweep.grid.entries()) {
    const at = (message: string) => issues.push(sweepIssue(sweep, ["grid", key], message));
    const segments = key.split(".");
    if (segments.some((s) => s.trim() === "")) {
      at("expected a dotted key path such as strategies.<name>.params.band or limits.maxOrderUsd");
      continue;
    }
    let strategy: string | undefined;
    let src = botSrc!;
    let schema: Schema = botConfigSchema;
    let rest = segments;
    if (segments[0] === "strategies") {
      const tail = segments.slice(1).join(".");
      strategy = names.find((n) => tail.startsWith(`${n}.`));
      if (strategy === undefined) {
        const guess = didYouMean(segments[1] ?? "", names);
        at(
          `${botSrc!.file} has no strategy named "${segments[1]}"${guess ? ` (did you mean "${guess}"?)` : ""}; its strategies: ${[...strategySrc.keys()].join(", ") || "none"}. A strategy's key is strategies.<name>.<key>, e.g. strategies.${[...strategySrc.keys()][0] ?? "<name>"}.params…`,
        );
        continue;
      }
      rest = tail.slice(strategy.length + 1).split(".");
      if (rest[0] === "name" || rest[0] === "kind") {
        at(`a strategy's ${rest[0]} cannot be swept (it says which strategy the other keys belong to)`);
        continue;
      }
      src = strategySrc.get(strategy)!;
      schema = strategyFileSchema;
      // A disabled strategy never runs: its values would give tied points that seem to say the value
      // does not matter (a sweep trial). Sweeping `enabled` itself turns it on where the grid says.
      const sweepsEnabled = sweep.grid.some((g) => g.key === `strategies.${strategy}.enabled`);
      if (rest[0] !== "enabled" && src.doc.get("enabled") === false && !sweepsEnabled) {
        at(
          `strategy ${strategy} is disabled (enabled: false in ${src.file}): it never runs, so every value of this key gives the same run. Enable it, or sweep strategies.${strategy}.enabled too`,
        );
        continue;
      }
    }
    const resolved = resolveKey(src, schema, rest);
    if (typeof resolved === "string") {
      at(resolved);
      continue;
    }
    keys.push({ key, label: labels[i]!, strategy, path: resolved, values });
  }
  // Two keys on the same value (or one inside the other) would overwrite each other.
  const within = (x: KeyPath, y: KeyPath) => x.length <= y.length && x.every((seg, j) => seg === y[j]);
  for (const [i, a] of keys.entries())
    for (const b of keys.slice(i + 1))
      if (a.strategy === b.strategy && (within(a.path, b.path) || within(b.path, a.path)))
        issues.push(
          sweepIssue(
            sweep,
            ["grid", b.key],
            `sets the same value as ${a.key}${a.path.length === b.path.length ? "" : " (one is inside the other)"}`,
          ),
        );
  if (issues.length > 0) throw new ConfigIssuesError(issues);

  const points: SweepPoint[] = [];
  const total = keys.reduce((n, k) => n * k.values.length, 1);
  for (let n = 0; n < total; n++) {
    let rem = n;
    const values: unknown[] = new Array(keys.length);
    for (let k = keys.length - 1; k >= 0; k--) {
      const count = keys[k]!.values.length;
      values[k] = keys[k]!.values[rem % count];
      rem = Math.floor(rem / count);
    }
    points.push({
      index: n + 1,
      values,
      edits: keys.map((k, j) => ({ strategy: k.strategy, path: k.path, value: values[j] })),
    });
  }
  const plan: SweepPlan = {
    sweep,
    configPath,
    keys,
    points,
    schedules: base.strategies.filter((s) => s.enabled).map((s) => ({ name: s.name, schedule: s.schedule })),
  };

  // Every point through the loader and schemas, as a run would load it; with what it warns of. "Every
  // point" is what every point is warned of, not the bot file as written: a grid replacing its
  // `maxOrderUsd: 50` on every point was still told "every point: maxOrderUsd 50 … every TWAP will be
  // blocked" (a sweep trial).
  const warned = new Map<SweepPoint, string[]>();
  for (const p of points) {
    try {
      warned.set(p, configWarnings(await loadConfig(configPath, env, { edit: sweepEditHook(p.edits) })));
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      issues.push(
        sweepIssue(
          sweep,
          ["grid"],
          `point ${p.index} of ${points.length} (${pointText(plan, p)}) is not a valid configuration: ${err.message}`,
        ),
      );
    }
  }
  if (issues.length > 0) throw new ConfigIssuesError(issues);
  const lists = [...warned.values()];
  const common = (lists[0] ?? []).filter((w) => lists.every((l) => l.includes(w)));
  if (common.length > 0) plan.warnings = common;
  for (const [p, list] of warned) {
    const own = list.filter((w) => !common.includes(w));
    if (own.length > 0) p.warnings = own;
  }
  return plan;
}

/** A grid value as the configuration reads it: a number, or a string holding one, by its decimal value. */
function sameValueKey(v: unknown): string {
  const numeric =
    typeof v === "number" || (typeof v === "string" && /^\s*-?\d+(\.\d+)?(e-?\d+)?\s*$/i.test(v));
  if (numeric) {
    try {
      return `#${new Decimal(String(v).trim()).toFixed()}`;
    } catch {
      // not a finite decimal: compared as written
    }
  }
  return JSON.stringify(v);
}
