// `hlbot config validate` checks a bot file and its strategies (or any given files) and reports every
// problem with file:line, key path and what was expected, exiting 2 when anything is wrong;
// `hlbot config schema` prints the JSON Schema of either file for editors. Nothing here reads a key or
// talks to the venue. The config modules are imported inside the actions to keep `--help` fast.
import { type Command, InvalidArgumentError } from "commander";
import { ConfigError } from "../../lib/errors.js";
import type { CliContext } from "../context.js";

export function register(program: Command, ctx: CliContext): void {
  const config = program.command("config").description("check configuration files, print their JSON Schema");

  config
    .command("validate")
    .description(
      "validate the bot file (--config, $HLBOT_CONFIG, ./hlbot.yaml, ~/.config/hlbot/config.yaml or config/default.yaml) and its strategies, or the given files; warn when its strategies will fight or a setting undoes a protection",
    )
    .argument(
      "[files...]",
      "bot or strategy files to check (a file with a top-level `kind` is a strategy file)",
    )
    .option("-c, --config <file>", "bot configuration file")
    .action(async (files: string[], opts: { config?: string }) => {
      const { fileKindOf, loadConfig, loadStrategyFile, resolveConfigPath, displayPath } = await import(
        "../../engine/config/loader.js"
      );
      const { formatIssue, issuesOf } = await import("../../engine/config/issues.js");
      const { resolve } = await import("node:path");
      const schedules = await import("../../engine/schedule.js");
      const describeStrategy = (s: Parameters<typeof describeStrategyWith>[1]) =>
        describeStrategyWith(schedules, s);

      const targets: Array<{ path: string; kind: "bot" | "strategy" }> = [];
      if (opts.config !== undefined || files.length === 0) {
        targets.push({ path: resolveConfigPath(opts.config, ctx.env), kind: "bot" });
      }
      for (const f of files) targets.push({ path: resolve(f), kind: await fileKindOf(resolve(f)) });

      let failed = 0;
      let errors = 0;
      const badFiles = new Set<string>();
      for (const target of targets) {
        try {
          if (target.kind === "strategy") {
            const s = await loadStrategyFile(target.path, ctx.env);
            ctx.stdout(`ok ${displayPath(s.file)}: strategy ${describeStrategy(s)}\n`);
            // On its own: the venue's default rules, and no limits to hold its amounts against.
            const { strategyWarnings } = await import("../../engine/config/warnings.js");
            for (const w of strategyWarnings(s)) ctx.stderr(`warning: ${w}\n`);
            // A bot file refuses a schedule by the second unless it allows them (loader.ts): said here,
            // or the file alone read "ok" and every bot refused it (a documentation trial).
            if (schedules.hasSecondsField(s.schedule))
              ctx.stderr(
                `warning: ${displayPath(s.file)}: schedule ${JSON.stringify(s.schedule)} has 6 fields (the first is seconds): a bot file runs it only with schedule.allowSeconds: true, and refuses it otherwise\n`,
              );
            continue;
          }
          const c = await loadConfig(target.path, ctx.env);
          const enabled = c.strategies.filter((s) => s.enabled).length;
          ctx.stdout(
            `ok ${displayPath(c.file)}: ${c.network}, ${c.mode}, ${c.strategies.length} ${c.strategies.length === 1 ? "strategy" : "strategies"} (${enabled} enabled)\n`,
          );
          for (const s of c.strategies) ctx.stdout(`  ${displayPath(s.file)}: ${describeStrategy(s)}\n`);
          // Settings that undo a protection, and strategies that will fight: warnings, not errors.
          const { configWarnings } = await import("../../engine/config/warnings.js");
          for (const w of configWarnings(c)) ctx.stderr(`warning: ${w}\n`);
          const keyVar =
            c.wallet.keystore === undefined ? (c.wallet.privateKeyEnv ?? "HLBOT_PRIVATE_KEY") : undefined;
          // Or its file: `<VAR>_FILE` (Docker and Kubernetes secrets) or wallet.privateKeyFile (an
          // operator's trial read "not set" beside a key file that signs).
          if (
            keyVar !== undefined &&
            !ctx.env[keyVar] &&
            !ctx.env[`${keyVar}_FILE`] &&
            c.wallet.privateKeyFile === undefined
          ) {
            ctx.stderr(
              `note: ${keyVar} is not set here; signing (plan without --unsigned, once, run) needs it\n`,
            );
          }
        } catch (err) {
          if (!(err instanceof ConfigError)) throw err;
          failed++;
          const issues = issuesOf(err);
          errors += issues.length;
          for (const issue of issues) {
            badFiles.add(issue.file || target.path);
            ctx.stderr(`error: ${formatIssue(issue)}\n`);
          }
        }
      }
      // Counted by the files the errors are in: a bot file whose three strategy files are wrong read
      // "1 of 1 file(s) invalid" (a config trial).
      if (failed > 0) {
        ctx.stderr(
          `${errors} error(s) in ${badFiles.size} file(s)` +
            (targets.length > 1 ? `; ${failed} of ${targets.length} given file(s) invalid` : "") +
            "\n",
        );
        ctx.exitCode = 2;
      }
    });

  config
    .command("schema")
    .description("print the JSON Schema of the bot file (config) or of a strategy file (strategy)")
    .argument("[target]", "config or strategy", parseTarget, "config")
    .action(async (target: "config" | "strategy") => {
      const { jsonSchemaFor } = await import("../../engine/config/jsonSchema.js");
      ctx.stdout(`${JSON.stringify(jsonSchemaFor(target), null, 2)}\n`);
    });
}

function parseTarget(value: string): "config" | "strategy" {
  if (value === "config" || value === "strategy") return value;
  throw new InvalidArgumentError('expected "config" or "strategy"');
}

function describeStrategyWith(
  schedules: Pick<typeof import("../../engine/schedule.js"), "CronSchedule" | "hasSecondsField">,
  s: { name: string; kind: string; schedule: string; enabled: boolean },
): string {
  return `${s.name} (${s.kind}, schedule "${s.schedule}"${s.enabled ? "" : ", disabled"}; next ${nextRuns(schedules, s.schedule)})`;
}

/** The next three times a schedule is due (UTC, as hlbot reads schedules): its cadence, in dates. */
function nextRuns(
  { CronSchedule, hasSecondsField }: Parameters<typeof describeStrategyWith>[0],
  expression: string,
): string {
  const schedule = new CronSchedule(expression);
  const runs: string[] = [];
  let t = Date.now();
  while (runs.length < 3) {
    const next = schedule.next(t);
    if (next === undefined) break;
    runs.push(
      new Date(next)
        .toISOString()
        .slice(0, hasSecondsField(expression) ? 19 : 16)
        .replace("T", " "),
    );
    t = next;
  }
  return runs.length === 0 ? "never" : `${runs.join(", ")} UTC`;
}
