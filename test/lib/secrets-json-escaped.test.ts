// A security audit: the logger redacts each serialized JSON line (src/lib/log.ts sink.write → redact).
// A registered password holding a character JSON escapes (" or \) appears in that line escaped
// (\" or \\), so the pattern built from the raw password no longer matched and the password was
// written out. Defence in depth only: no end-to-end path putting a password into a log message
// was found, but this is the "last line of defence" the README promises.
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/lib/log.js";
import { clearSecretsForTests, registerSecret } from "../../src/lib/secrets.js";

afterEach(() => clearSecretsForTests());

describe("log redaction of a registered password", () => {
  for (const password of ['tr0ub"ador&3', "C:\\keys\\hunter22"]) {
    it(`removes ${JSON.stringify(password)} from a log line`, async () => {
      registerSecret(password);
      let out = "";
      const logger = await createLogger({
        format: "json",
        stream: {
          write: (s: string) => {
            out += s;
            return true;
          },
        } as unknown as NodeJS.WritableStream,
      });
      logger.warn(`something echoed ${password} by mistake`);
      await logger.flush();
      expect(out).toContain("[REDACTED]");
      // The password in any spelling a reader would recover it from: raw or JSON-escaped.
      expect(out).not.toContain(JSON.stringify(password).slice(1, -1));
    });
  }
});
