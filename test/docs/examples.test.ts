// The shipped monitoring examples tell a person what to run: every `hlbot …` command in the alert
// rules' annotations must work (a user's trial: "Run `hlbot journal` to see them" only printed help).
// The command runs in-process against a bot file and state folder of its own, in place of the
// example's /etc/hlbot/bot.yaml; the `| jq …` part of a pipeline is left to jq.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseJson } from "../../src/lib/json.js";
import { runCli } from "../helpers/cli.js";

const ROOT = join(import.meta.dirname, "../..");
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("examples/prometheus/alerts.yaml", () => {
  it("names only hlbot commands that do what the annotation says", async () => {
    const alerts = parse(readFileSync(join(ROOT, "examples/prometheus/alerts.yaml"), "utf8")) as {
      groups: Array<{ rules: Array<{ alert: string; annotations?: Record<string, string> }> }>;
    };
    dir = mkdtempSync(join(tmpdir(), "hlbot-alert-examples-"));
    const bot = join(dir, "bot.yaml");
    writeFileSync(
      bot,
      [
        "network: testnet",
        "mode: dry-run",
        `strategies: ${join(ROOT, "strategies/twap-accumulate.yaml")}`,
        "state: ./state",
        "limits: { maxOrderUsd: 1000, maxDailyNotionalUsd: 5000, maxStakeMovePerDay: 100 }",
        "",
      ].join("\n"),
    );
    const commands = alerts.groups
      .flatMap((g) => g.rules)
      .flatMap((r) =>
        Object.values(r.annotations ?? {}).flatMap((text) =>
          [...text.matchAll(/`hlbot ([^`]+)`/g)].map((m) => ({ alert: r.alert, command: m[1]! })),
        ),
      );
    expect(commands.map((c) => c.alert)).toContain("HlbotUnknownSubmissions");
    for (const { alert, command } of commands) {
      const [hlbotPart, jq] = command.split(" | ");
      const args = hlbotPart!
        .trim()
        .split(/\s+/)
        .map((a) => (a === "/etc/hlbot/bot.yaml" ? bot : a));
      const run = await runCli(args, { cwd: dir });
      expect(run.code, `${alert}: hlbot ${command}\n${run.stderr}`).toBe(0);
      expect(run.stdout, `${alert}: hlbot ${command}`).not.toMatch(/^Usage:/);
      if (alert === "HlbotUnknownSubmissions") {
        if (args.includes("--json")) {
          expect(jq).toMatch(/\.submissions\[\]/);
          expect(parseJson(run.stdout)).toHaveProperty("submissions");
        } else expect(run.stdout).toContain("Recent submissions:");
      }
    }
  });
});
