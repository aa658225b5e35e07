// Runs the CLI in-process (src/cli/main.ts) with its output captured, optionally from another working
// directory, with an environment of its own (none by default), and as if on a terminal (`isTTY`: stdout
// and stderr) or not.
import { main } from "../../src/cli/main.js";

export async function runCli(
  argv: string[],
  o: { cwd?: string; env?: NodeJS.ProcessEnv; isTTY?: boolean } = {},
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
      isTTY: o.isTTY ?? false,
      ...(o.isTTY === undefined ? {} : { stderrIsTTY: o.isTTY }),
    });
    return { code, stdout, stderr };
  } finally {
    process.chdir(before);
  }
}
