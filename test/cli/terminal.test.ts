// Terminal polish: completion scripts generated from the command tree (bash checked by running its
// function), and colour only on a terminal, never with NO_COLOR, --no-color or --json.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { BIN, ensureBuilt, REPO_ROOT } from "../helpers/dist.js";

const dir = mkdtempSync(join(tmpdir(), "hlbot-terminal-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (argv: string[], o: { isTTY: boolean; env?: Record<string, string> }) => runCli(argv, o);

const ESC = "\u001b[";

describe("hlbot completion", () => {
  it("bash: completes commands, subcommands and each command's own options", async () => {
    const r = await run(["completion", "bash"], { isTTY: false });
    expect(r.code).toBe(0);
    const script = join(dir, "hlbot.bash");
    writeFileSync(script, r.stdout);
    const complete = (...words: string[]) =>
      spawnSync(
        "bash",
        [
          "-c",
          `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _hlbot; echo "\${COMPREPLY[*]}"`,
        ],
        { encoding: "utf8" },
      ).stdout.trim();
    expect(complete("hlbot", "sim")).toBe("simulate");
    expect(complete("hlbot", "config", "")).toBe("validate schema --help");
    expect(complete("hlbot", "plan", "--un")).toBe("--unsigned");
    expect(complete("hlbot", "notify", "te")).toBe("test");
    expect(complete("hlbot", "run", "--unhealthy")).toBe("--unhealthy-after");
  });

  it("zsh and fish scripts name every command; an unknown shell is exit 2", async () => {
    const zsh = await run(["completion", "zsh"], { isTTY: false });
    expect(zsh.stdout.split("\n")[0]).toBe("#compdef hlbot");
    const fish = await run(["completion", "fish"], { isTTY: false });
    for (const command of ["init", "plan", "once", "run", "simulate", "venue", "notify"])
      expect(fish.stdout).toContain(`-a '${command}'`);
    expect(fish.stdout).toMatch(/__fish_seen_subcommand_from plan' -l 'unsigned'/);
    expect((await run(["completion", "tcsh"], { isTTY: false })).code).toBe(2);
  });
});

describe("colour", () => {
  const config = join(REPO_ROOT, "config/default.yaml");
  it("on a terminal the outcome words are coloured; not with NO_COLOR, --no-color or off a terminal", async () => {
    const tty = await run(["config", "validate", config], { isTTY: true });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toContain(`${ESC}32mok${ESC}0m`);
    for (const [argv, env, isTTY] of [
      [["config", "validate", config], { NO_COLOR: "1" }, true],
      [["--no-color", "config", "validate", config], {}, true],
      // After the command too (a config trial: "unknown option '--no-color'").
      [["config", "validate", config, "--no-color"], {}, true],
      [["config", "validate", "--verbose", "--no-color", config], {}, true],
      [["config", "validate", config], {}, false],
    ] as const) {
      const r = await run([...argv], { isTTY, env: { ...env } });
      expect(r.code).toBe(0);
      expect(r.stdout).not.toContain(ESC);
      expect(r.stdout).toMatch(/^ok /);
    }
  });
});

describe("global options after the command", () => {
  it("are taken, and each command's help lists them (not --version, which only hlbot itself takes)", async () => {
    const help = await run(["journal", "rebuild", "--help"], { isTTY: false });
    expect(help.stdout).toMatch(
      /\nGlobal Options:\n {2}--verbose +print stack traces and debug logs\n {2}--no-color +no colours/,
    );
    expect(help.stdout).not.toContain("--version");
    const late = await run(["config", "schema", "--verbose"], { isTTY: false });
    expect(late.code).toBe(0);
    expect(JSON.parse(late.stdout)).toHaveProperty("$schema");
    expect(late.stderr).not.toMatch(/unknown option/);
  });
});

describe("a closed stdout", () => {
  it("(hlbot … | head) ends the command quietly, not with an EPIPE stack trace", async () => {
    ensureBuilt(["cli/main.js"]);
    const proc = spawn(process.execPath, [BIN, "completion", "fish"], {
      env: { PATH: process.env.PATH ?? "" },
    });
    // Like `head -0`: the reader goes away before the command writes.
    proc.stdout.destroy();
    let stderr = "";
    proc.stderr.on("data", (d: Buffer) => {
      stderr += d;
    });
    const code = await new Promise<number | null>((resolve) => proc.on("close", resolve));
    expect(stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(code).toBe(0);
  });
});
