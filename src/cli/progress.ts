// The one way a command draws a progress bar: on stderr (stdout stays for results), cleared when done,
// cli-progress loaded only when a terminal will show it.
import type { SingleBar } from "cli-progress";

export async function stderrBar(format: string, fps = 10): Promise<SingleBar> {
  const { SingleBar, Presets } = await import("cli-progress");
  return new SingleBar(
    { stream: process.stderr, format, hideCursor: true, clearOnComplete: true, fps },
    Presets.shades_classic,
  );
}
