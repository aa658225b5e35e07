// onReadOnlyMount decides between "mount it read-write" and "chown it" for a state folder that cannot be
// written. access(2) said writable on an ext4 remounted read-only after an error (emergency_ro), so the
// advice was to chown a folder root could not write (an SRE's trial): a real write is now the probe. The
// read-only tmpfs case runs in test/cli/stateAccess.test.ts (it needs root to mount).
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { onReadOnlyMount } from "../../src/lib/errors.js";

it("a writable folder is not read-only, and the write probe leaves nothing behind", () => {
  const dir = mkdtempSync(join(tmpdir(), "hlbot-rw-"));
  try {
    expect(onReadOnlyMount(dir)).toBe(false);
    expect(onReadOnlyMount(join(dir, "not", "made", "yet"))).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
