// A review: a key file's key is registered when a command starts (so an argument holding it is refused
// before anything is sent). Read there from a pipe (`HLBOT_PRIVATE_KEY_FILE=<(pass show …)`, /dev/stdin,
// a FIFO), it drained the pipe before the signer read it: every signing command failed, and a FIFO with
// no writer hung every command, `--version` included. Only regular files are read early.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Wallet } from "ethers";
import { afterEach, expect, it } from "vitest";
import { clearSecretsForTests, containsSecret, registerSecretFile } from "../../src/lib/secrets.js";
import { loadSigner } from "../../src/venue/signing/signer.js";

const KEY = `0x${"ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"}`;
let dir: string | undefined;
afterEach(() => {
  clearSecretsForTests();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

it.skipIf(process.platform === "win32")(
  "a FIFO named as the key file is left for the signer, whole",
  async () => {
    dir = mkdtempSync(join(tmpdir(), "hlbot-fifo-"));
    const fifo = join(dir, "key");
    execFileSync("mkfifo", [fifo]);
    // Returns at once (opening a FIFO with no writer for reading would block here), reads nothing.
    registerSecretFile(fifo);
    expect(containsSecret(KEY)).toBe(false);
    // A writer feeds it once, as `<(pass show …)` does: the signer gets the whole key.
    const writer = spawn(process.execPath, [
      "-e",
      `require("fs").writeFileSync(${JSON.stringify(fifo)}, ${JSON.stringify(`${KEY}\n`)})`,
    ]);
    const signer = await loadSigner({ privateKeyFile: fifo }, {}, { warn: () => undefined });
    expect(signer.address.toLowerCase()).toBe(new Wallet(KEY).address.toLowerCase());
    await new Promise((resolve) => writer.on("exit", resolve));
  },
);

it("a regular key file's key is registered", () => {
  dir = mkdtempSync(join(tmpdir(), "hlbot-fifo-"));
  const file = join(dir, "key");
  writeFileSync(file, `${KEY}\n`, { mode: 0o600 });
  registerSecretFile(file);
  expect(containsSecret(`x ${KEY.slice(2)} y`)).toBe(true);
});
