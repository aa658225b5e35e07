// `hlbot init [DIR]`: a starter setup that works as written: a bot file for testnet in dry-run with
// conservative limits and its state folder named, the shipped strategies (which work together on one
// account), and the JSON Schemas every YAML file points an editor at. It never overwrites a file.
import type { Command } from "commander";
import { shellWord } from "../../lib/text.js";
import type { CliContext } from "../context.js";

const BOT_FILE = `# yaml-language-server: $schema=./schema/config.json
# hlbot bot file, written by \`hlbot init\`. Testnet and dry-run: nothing is sent until you say
# \`mode: live\` (and \`network: mainnet\` for real money). Reference: README, "Configuration reference".
network: testnet
mode: dry-run
# The account acted for. Needed by \`hlbot plan --unsigned\` (no key); with a key, the key's own account
# is the default. HLBOT_ACCOUNT=0x… sets it without editing this file.
account: \${HLBOT_ACCOUNT:-}
wallet:
  privateKeyEnv: HLBOT_PRIVATE_KEY # the key comes from the environment, never from this file
strategies: ./strategies
# The journal, nonces and lock of this bot. Back the whole folder up; never share it between two bots.
state: ./state
# Conservative limits for a first run (USD); raise them when the plans look right. \`hlbot simulate\`
# runs on the demo account (about 70,000 USD): these limits reduce or block many of its orders there,
# as they would on a real account of that size (the summary says which and why).
limits:
  maxOrderUsd: 500
  maxDailyNotionalUsd: 2000
  maxStakeMovePerDay: 500
log:
  level: info
  format: auto
`;

export function register(program: Command, ctx: CliContext): void {
  program
    .command("init [dir]")
    .description(
      "write a starter setup into DIR (default: here): hlbot.yaml (testnet, dry-run), strategies/ and editor schemas; never overwrites",
    )
    .action(async (dirArg: string | undefined) => {
      const { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } = await import("node:fs");
      const { join, resolve, relative } = await import("node:path");
      const { fileURLToPath } = await import("node:url");
      const { ConfigError } = await import("../../lib/errors.js");
      const { jsonSchemaFor } = await import("../../engine/config/jsonSchema.js");
      const dir = resolve(dirArg ?? ".");
      // A file where the folder goes: said, with exit 2 (a config trial met "EEXIST: … mkdir", exit 1).
      const { statSync } = await import("node:fs");
      const isFolder = (() => {
        try {
          return statSync(dir).isDirectory();
        } catch {
          return undefined;
        }
      })();
      if (isFolder === false)
        throw new ConfigError(
          `${dirArg ?? "."} is a file, not a folder: give a folder to write the starter setup into (hlbot init DIR)`,
        );
      const shipped = fileURLToPath(new URL("../../../strategies/", import.meta.url));
      const files = new Map<string, string>();
      files.set(join(dir, "hlbot.yaml"), BOT_FILE);
      files.set(join(dir, "schema", "config.json"), `${JSON.stringify(jsonSchemaFor("config"), null, 2)}\n`);
      files.set(
        join(dir, "schema", "strategy.json"),
        `${JSON.stringify(jsonSchemaFor("strategy"), null, 2)}\n`,
      );
      for (const name of readdirSync(shipped)
        .filter((f) => f.endsWith(".yaml"))
        .sort()) {
        const text = readFileSync(join(shipped, name), "utf8");
        files.set(
          join(dir, "strategies", name),
          `# yaml-language-server: $schema=../schema/strategy.json\n${text.replace(/^# yaml-language-server:.*\n/, "")}`,
        );
      }
      const taken = [...files.keys()].filter((f) => existsSync(f));
      // A strategies/ folder with strategies of its own: the examples beside them would run with them
      // (a bot file points at the whole folder; three of the examples are enabled).
      const own = join(dir, "strategies");
      if (
        existsSync(own) &&
        !taken.some((f) => f.startsWith(own)) &&
        readdirSync(own).some((f) => /\.ya?ml$/i.test(f))
      )
        taken.push(`${own} (it holds strategies: the examples would run beside them)`);
      if (taken.length > 0)
        throw new ConfigError(
          `not overwriting what is there: ${taken.map((f) => relative(process.cwd(), f) || f).join(", ")} (choose an empty folder: hlbot init DIR)`,
        );
      for (const [file, text] of files) {
        mkdirSync(join(file, ".."), { recursive: true });
        writeFileSync(file, text, { flag: "wx" });
      }
      const shown = relative(process.cwd(), dir) || ".";
      // One `cd`, then the commands (a `cd` on each line failed from the second line on when pasted).
      ctx.stdout(
        `hlbot: wrote ${files.size} files in ${dir}: hlbot.yaml, strategies/ (${files.size - 3}), schema/\n` +
          "Next:\n" +
          (shown === "." ? "" : `  cd ${shellWord(shown)}\n`) +
          "  hlbot config validate            # check the bot file and its strategies\n" +
          "  hlbot simulate --config hlbot.yaml --days 30   # the strategies on the embedded venue's demo account (~70,000 USD: these limits cut its orders)\n" +
          "  HLBOT_ACCOUNT=0xYourAccount hlbot plan --unsigned   # what they would do now (add --base-url URL of `hlbot venue` to try it locally)\n",
      );
    });
}
