import { mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/lib/log.js";
import { clearSecretsForTests, registerSecret } from "../../src/lib/secrets.js";

const KEY = "0x4c0883a69102937d6231471b5dbb6204fe512961708279f2e3e8a5d4b8e3e0a1";

function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  return { stream, text: () => chunks.join("") };
}

describe("logger", () => {
  afterEach(() => clearSecretsForTests());

  it("writes JSON lines and removes registered secrets in every spelling, also from the log file", async () => {
    registerSecret(KEY);
    const dir = mkdtempSync(join(tmpdir(), "hlbot-log-"));
    try {
      const out = capture();
      const file = join(dir, "bot.log");
      const logger = await createLogger({ format: "json", stream: out.stream, isTTY: false, file });
      const bare = KEY.slice(2);
      logger.info({ leaked: KEY, upper: bare.toUpperCase() }, `oops ${bare}`);
      await logger.flush();
      for (const text of [out.text(), readFileSync(file, "utf8")]) {
        const line = JSON.parse(text.trim()) as Record<string, unknown>;
        expect(line.msg).toBe("oops [REDACTED]");
        expect(line.leaked).toBe("[REDACTED]");
        expect(line.upper).toBe("[REDACTED]");
        expect(text.toLowerCase()).not.toContain(bare);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names levels ("warn", not 40) and reopens its file after logrotate moved it', async () => {
    const dir = mkdtempSync(join(tmpdir(), "hlbot-log-"));
    try {
      const out = capture();
      const file = join(dir, "bot.log");
      const logger = await createLogger({ format: "json", stream: out.stream, isTTY: false, file });
      logger.warn("before rotation");
      await new Promise((r) => setTimeout(r, 50));
      renameSync(file, `${file}.1`);
      logger.reopen();
      logger.error("after rotation");
      await logger.flush();
      const rotated = readFileSync(`${file}.1`, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      const fresh = readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(rotated.map((l) => [l.level, l.msg])).toEqual([["warn", "before rotation"]]);
      expect(fresh.map((l) => [l.level, l.msg])).toEqual([["error", "after rotation"]]);
      expect(out.text()).toContain('"level":"error"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("respects the level", async () => {
    const out = capture();
    const logger = await createLogger({ format: "json", level: "warn", stream: out.stream, isTTY: false });
    logger.info("hidden");
    logger.warn("shown");
    expect(out.text()).not.toContain("hidden");
    expect(out.text()).toContain("shown");
  });

  it("dates lines by the clock it is given (a simulation's virtual time), else the wall clock", async () => {
    const out = capture();
    let t = Date.parse("2025-01-02T03:04:05.000Z");
    const logger = await createLogger({ format: "json", stream: out.stream, isTTY: false, clock: () => t });
    logger.warn("first");
    t += 60_000;
    logger.warn("second");
    const times = out
      .text()
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { time: string }).time);
    expect(times).toEqual(["2025-01-02T03:04:05.000Z", "2025-01-02T03:05:05.000Z"]);
  });
});
