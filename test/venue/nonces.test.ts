import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openStateDb, type StateDatabase } from "../../src/lib/stateDb.js";
import { MemoryNonceSource, NonceStore, SignerQueue } from "../../src/venue/nonces.js";
import { distUrl, ensureBuilt } from "../helpers/dist.js";

const SIGNER = "0x1719884eB866cb12b2287399B15f7db5e7d775EA";
const OTHER = "0x0000000000000000000000000000000000000bad";

let dir: string;
const dbs: StateDatabase[] = [];

async function store(clock: () => number): Promise<NonceStore> {
  const db = await openStateDb({ dir });
  dbs.push(db);
  return new NonceStore(db, { clock });
}

function expectStrictlyIncreasing(values: number[]): void {
  for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1]!);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hlbot-nonces-"));
});
afterEach(() => {
  for (const db of dbs.splice(0)) if (db.open) db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("NonceStore", () => {
  it("uses the clock when it is ahead of the last nonce, and last + 1 when it is not", async () => {
    let now = 1_700_000_000_000;
    const nonces = await store(() => now);
    expect(nonces.next(SIGNER)).toBe(now);
    expect(nonces.next(SIGNER)).toBe(now + 1); // same millisecond
    now += 1000;
    expect(nonces.next(SIGNER)).toBe(now);
    expect(nonces.last(SIGNER)).toBe(now);
  });

  it("follows the local clock, not the venue's: one Date header days ahead does not move the counter (a review)", async () => {
    const real = 1_700_000_000_000;
    let now = real;
    let venueNow: number | undefined = real;
    const db = await openStateDb({ dir });
    dbs.push(db);
    const nonces = new NonceStore(db, { clock: () => now, venueNow: () => venueNow });
    expect(nonces.next(SIGNER)).toBe(real);
    venueNow = real + 3 * 24 * 3_600_000; // one answer dated 3 days ahead
    expect(nonces.next(SIGNER)).toBe(real + 1);
    now += 1000;
    venueNow = now;
    expect(nonces.next(SIGNER)).toBe(real + 1000);
  });

  it("keeps one counter per signer, whatever the address case", async () => {
    const now = 1_700_000_000_000;
    const nonces = await store(() => now);
    expect(nonces.next(SIGNER)).toBe(now);
    expect(nonces.next(SIGNER.toLowerCase())).toBe(now + 1);
    expect(nonces.next(OTHER)).toBe(now);
  });

  it("peek answers what next would return without reserving it", async () => {
    const now = 1_700_000_000_000;
    const nonces = await store(() => now);
    nonces.next(SIGNER);
    expect(nonces.peek(SIGNER)).toBe(now + 1);
    expect(nonces.peek(SIGNER)).toBe(now + 1);
    expect(nonces.next(SIGNER)).toBe(now + 1);
  });

  it("never repeats or decreases across 1,000 concurrent allocations in one process", async () => {
    let now = 1_700_000_000_000;
    // The clock barely moves, so most nonces must come from last + 1.
    const nonces = await store(() => Math.floor(now++ / 7));
    const queue = new SignerQueue();
    const got = await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        queue.run(SIGNER, async () => {
          await new Promise((r) => setImmediate(r));
          return nonces.next(i % 2 ? SIGNER : SIGNER.toLowerCase());
        }),
      ),
    );
    expect(new Set(got).size).toBe(1000);
    expectStrictlyIncreasing(got); // the queue ran them in submission order
  });

  it("never hands out the same nonce to 1,000 concurrent callers that bypass the queue", async () => {
    const nonces = await store(() => 1_700_000_000_000);
    const got = await Promise.all(
      Array.from({ length: 1000 }, async (_, i) => {
        for (let k = 0; k < i % 5; k++) await new Promise((r) => setImmediate(r));
        return nonces.next(SIGNER);
      }),
    );
    expect(new Set(got).size).toBe(1000);
    expect(Math.min(...got)).toBe(1_700_000_000_000);
    expect(Math.max(...got)).toBe(1_700_000_000_999);
  });

  it("never repeats across two connections to the same file used alternately", async () => {
    const frozen = () => 1_700_000_000_000;
    const a = await store(frozen);
    const b = await store(frozen);
    const got: number[] = [];
    for (let i = 0; i < 200; i++) got.push((i % 3 ? a : b).next(SIGNER));
    expect(got).toEqual(Array.from({ length: 200 }, (_, i) => 1_700_000_000_000 + i));
  });

  it("keeps increasing after a restart with the clock set back", async () => {
    const before = await store(() => 1_700_000_000_000);
    const issued = [before.next(SIGNER), before.next(SIGNER)];
    dbs[0]!.close();

    const after = await store(() => 1_700_000_000_000 - 3_600_000); // clock moved back an hour
    const next = after.next(SIGNER);
    expect(next).toBe(issued[1]! + 1);
    expect(after.next(SIGNER)).toBe(next + 1);
  });
});

describe("nonces across processes", () => {
  beforeAll(() => ensureBuilt(["venue/nonces.js", "lib/stateDb.js"]), 120_000);

  // A second process: opens the same state folder through the compiled modules, says "ready", waits
  // for the go file (so both children start allocating at the same moment), then allocates `count`
  // nonces and prints them as JSON.
  function child(
    count: number,
    go: string,
    frozenClock: number | null,
  ): { ready: Promise<void>; done: Promise<number[]> } {
    const script = `
      const { existsSync } = await import("node:fs");
      const { openStateDb } = await import(${JSON.stringify(distUrl("lib/stateDb.js"))});
      const { NonceStore } = await import(${JSON.stringify(distUrl("venue/nonces.js"))});
      const db = await openStateDb({ dir: ${JSON.stringify(dir)} });
      const frozen = ${JSON.stringify(frozenClock)};
      const store = new NonceStore(db, { clock: frozen === null ? Date.now : () => frozen });
      process.stderr.write("ready\\n");
      const deadline = Date.now() + 20000;
      while (!existsSync(${JSON.stringify(go)}) && Date.now() < deadline) {}
      const out = [];
      const pause = new Int32Array(new SharedArrayBuffer(4));
      for (let i = 0; i < ${count}; i++) {
        out.push(store.next(${JSON.stringify(SIGNER)}));
        // A short random pause after every nonce, so the other process gets the write lock in between
        // (SQLite's busy handler sleeps, so without pauses one process tends to run to the end, and on
        // a loaded machine one child could finish before the other is even scheduled).
        Atomics.wait(pause, 0, 0, Math.random() * 2);
      }
      db.close();
      process.stdout.write(JSON.stringify(out));
    `;
    const proc = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: "pipe" });
    let out = "";
    let err = "";
    let markReady!: () => void;
    const ready = new Promise<void>((r) => {
      markReady = r;
    });
    proc.stdout.on("data", (d) => {
      out += d;
    });
    proc.stderr.on("data", (d) => {
      err += d;
      if (err.includes("ready\n")) markReady();
    });
    const done = new Promise<number[]>((resolve, reject) => {
      proc.on("error", reject);
      proc.on("close", (code) => {
        markReady();
        if (code === 0) resolve(JSON.parse(out) as number[]);
        else reject(new Error(`child exited ${code}: ${err}`));
      });
    });
    return { ready, done };
  }

  async function race(count: number, frozenClock: number | null): Promise<[number[], number[]]> {
    const go = join(dir, "go");
    const a = child(count, go, frozenClock);
    const b = child(count, go, frozenClock);
    await Promise.all([a.ready, b.ready]);
    writeFileSync(go, "");
    return Promise.all([a.done, b.done]);
  }

  it("two processes sharing the state file never get the same nonce (frozen clock)", async () => {
    const frozen = 1_700_000_000_000;
    const [a, b] = await race(500, frozen);
    expectStrictlyIncreasing(a);
    expectStrictlyIncreasing(b);
    const all = [...a, ...b].sort((x, y) => x - y);
    // With the clock frozen every nonce is last + 1: together they are exactly one gap-free run.
    expect(all).toEqual(Array.from({ length: 1000 }, (_, i) => frozen + i));
    // And the two really interleaved (otherwise this test would prove nothing about locking).
    expect(Math.max(...a) > Math.min(...b) && Math.max(...b) > Math.min(...a)).toBe(true);
  }, 60_000);

  it("two processes on the real clock, then this process after them, never repeat or go back", async () => {
    const [a, b] = await race(500, null);
    expectStrictlyIncreasing(a);
    expectStrictlyIncreasing(b);
    expect(new Set([...a, ...b]).size).toBe(1000);
    const later = await store(() => 0); // a restart whose clock reads the epoch
    expect(later.next(SIGNER)).toBe(Math.max(...a, ...b) + 1);
  }, 60_000);
});

describe("MemoryNonceSource", () => {
  it("is monotonic per signer even when the clock goes back", () => {
    let now = 5000;
    const source = new MemoryNonceSource(() => now);
    expect(source.next(SIGNER)).toBe(5000);
    now = 10;
    expect(source.next(SIGNER)).toBe(5001);
    expect(source.next(OTHER)).toBe(10);
  });
});

describe("SignerQueue", () => {
  it("runs one signer's tasks one at a time in order, and different signers concurrently", async () => {
    const queue = new SignerQueue();
    const events: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const first = queue.run(SIGNER, async () => {
      events.push("a1 start");
      await gate;
      events.push("a1 end");
      return 1;
    });
    const second = queue.run(SIGNER.toLowerCase(), () => {
      events.push("a2");
      return 2;
    });
    const other = queue.run(OTHER, () => {
      events.push("b1");
      return 3;
    });
    expect(await other).toBe(3);
    expect(events).toEqual(["a1 start", "b1"]);
    release();
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(events).toEqual(["a1 start", "b1", "a1 end", "a2"]);
  });

  it("keeps going after a task fails, and forgets idle signers", async () => {
    const queue = new SignerQueue();
    const failed = queue.run(SIGNER, () => {
      throw new Error("boom");
    });
    const next = queue.run(SIGNER, () => "ok");
    await expect(failed).rejects.toThrow("boom");
    expect(await next).toBe("ok");
    await new Promise((r) => setImmediate(r));
    expect(queue.activeSigners).toBe(0);
  });
});
