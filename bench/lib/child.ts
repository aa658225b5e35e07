// Child processes of the suite: the simulator server of the info benchmark, started from the compiled
// bench and always stopped (stdin closed, then SIGTERM, then SIGKILL) so none outlives a run.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

export interface SimChild {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts bench/simServer.js on `scenarioFile`; resolves when it printed its URL (15 s at most). */
export async function startSimChild(scenarioFile: string): Promise<SimChild> {
  const script = fileURLToPath(new URL("../simServer.js", import.meta.url));
  const child = spawn(process.execPath, [script, scenarioFile], { stdio: ["pipe", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    let buf = "";
    const timer = setTimeout(() => reject(new Error("simulator child did not start within 15 s")), 15_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      buf += chunk.toString("utf8");
      const nl = buf.indexOf("\n");
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(buf.slice(0, nl).trim());
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`simulator child exited early (code ${code})`));
    });
  });
  return {
    url,
    process: child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.stdin!.end();
      const timer = setTimeout(() => child.kill("SIGTERM"), 2_000);
      const hard = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
      clearTimeout(hard);
    },
  };
}
