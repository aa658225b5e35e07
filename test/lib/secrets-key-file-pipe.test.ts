// A review: a key file's key is registered when a command starts (so an argument holding it is refused
// before anything is sent). Read there from a pipe (`HLBOT_PRIVATE_KEY_FILE=<(pass show …)`, /dev/stdin,
// a FIFO), it drained the pipe before the signer read it: every signing command failed, and a FIFO with
// no writer hung every command, `--version` included. Only regular files are read early.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { clearSecretsForTests, containsSecret, registerSecretFile } from "../../src/lib/secrets.js";

const KEY = `0x${"ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"}`;
let dir: string | undefined;
afterEach(() => {
  clearSecretsForTests();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

it.skipIf(process.platform === "win32")(
  "a FIFO named as the key file is not read (nothing drained, nothing hung)",
  () => {
    dir = mkdtempSync(join(tmpdir(), "hlbot-fifo-"));
    const fifo = join(dir, "key");
    execFileSync("mkfifo", [fifo]);
    // Returns at once: opening a FIFO with no writer for reading would block here for good, and a read
    // with a writer would drain what the signer reads next.
    registerSecretFile(fifo);
    expect(containsSecret(KEY)).toBe(false);
  },
);

it("a regular key file's key is registered", () => {
  dir = mkdtempSync(join(tmpdir(), "hlbot-fifo-"));
  const file = join(dir, "key");
  writeFileSync(file, `${KEY}\n`, { mode: 0o600 });
  registerSecretFile(file);
  expect(containsSecret(`x ${KEY.slice(2)} y`)).toBe(true);
});
