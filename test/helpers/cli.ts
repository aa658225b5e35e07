// Runs the CLI in-process (src/cli/main.ts) with its output captured, optionally from another working
// directory and with an environment of its own (none by default).
import { main } from "../../src/cli/main.js";

export async function runCli(
  argv: string[],
  o: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const before = process.cwd();
  if (o.cwd) process.chdir(o.cwd);
  try {
    const code = await main(argv, {
      stdout: (s) => {
        stdout += s;
      },
      stderr: (s) => {
        stderr += s;
      },
      env: o.env ?? {},
      isTTY: false,
    });
    return { code, stdout, stderr };
  } finally {
    process.chdir(before);
  }
}
