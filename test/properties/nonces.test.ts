// Promise 4, "exact arithmetic", for nonces: under any interleaving of concurrent sends (chosen by
// fast-check's scheduler), several connections to one state file (as separate processes would have),
// several signers, and a clock that jumps back and forth, every signer's nonces are unique and strictly
// increasing in the order they are handed out, and requests leave the signer queue in nonce order.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { openStateDb, type StateDatabase } from "../../src/lib/stateDb.js";
import { NonceStore, SignerQueue } from "../../src/venue/nonces.js";

const SIGNERS = [
  "0x1719884eB866cb12b2287399B15f7db5e7d775EA",
  "0x0000000000000000000000000000000000000bad",
  "0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266",
];

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Task {
  signer: number;
  connection: number;
  /** Clock change (ms) applied before the nonce is taken: forward, none, or back. */
  clockStep: number;
  /** Through the signer queue (a real send) or straight from the counter (a second process). */
  queued: boolean;
}

const task: fc.Arbitrary<Task> = fc.record({
  signer: fc.integer({ min: 0, max: SIGNERS.length - 1 }),
  connection: fc.integer({ min: 0, max: 2 }),
  clockStep: fc.oneof(
    fc.constant(0),
    fc.integer({ min: -86_400_000, max: 86_400_000 }),
    fc.integer({ min: -3, max: 3 }),
  ),
  queued: fc.boolean(),
});

describe("nonce monotonicity under concurrency", () => {
  it("hands out unique, strictly increasing nonces per signer and sends them in order", async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.array(task, { minLength: 1, maxLength: 40 }), async (s, tasks) => {
        const dir = mkdtempSync(join(tmpdir(), "hlbot-prop-nonces-"));
        dirs.push(dir);
        let now = 1_700_000_000_000;
        const dbs: StateDatabase[] = [];
        try {
          const stores: NonceStore[] = [];
          for (let i = 0; i < 3; i++) {
            const db = await openStateDb({ dir, synchronous: "NORMAL" });
            dbs.push(db);
            stores.push(new NonceStore(db, { clock: () => now }));
          }
          const queue = new SignerQueue();
          const issued = new Map<string, number[]>();
          const sent = new Map<string, number[]>();
          const push = (m: Map<string, number[]>, k: string, v: number) => m.set(k, [...(m.get(k) ?? []), v]);

          const runs = tasks.map(async (t) => {
            // The scheduler decides when each task starts and when each simulated send finishes.
            await s.schedule(Promise.resolve(), "start");
            const signer = SIGNERS[t.signer]!;
            const key = signer.toLowerCase();
            const take = () => {
              now += t.clockStep;
              const nonce = stores[t.connection]!.next(signer);
              push(issued, key, nonce);
              return nonce;
            };
            if (!t.queued) {
              take();
              return;
            }
            await queue.run(signer, async () => {
              const nonce = take();
              await s.schedule(Promise.resolve(), "network");
              push(sent, key, nonce);
            });
          });
          await s.waitFor(Promise.all(runs));

          for (const [signer, list] of issued) {
            expect(new Set(list).size, `${signer} unique`).toBe(list.length);
            for (let i = 1; i < list.length; i++) expect(list[i]!, signer).toBeGreaterThan(list[i - 1]!);
          }
          for (const [signer, list] of sent) {
            for (let i = 1; i < list.length; i++)
              expect(list[i]!, `${signer} send order`).toBeGreaterThan(list[i - 1]!);
          }
        } finally {
          for (const db of dbs) db.close();
        }
      }),
      { numRuns: 150 },
    );
  });

  it("never goes back across a restart with the clock set back, whatever happened before", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: -10_000_000, max: 10_000_000 }), { minLength: 1, maxLength: 30 }),
        async (steps) => {
          const dir = mkdtempSync(join(tmpdir(), "hlbot-prop-nonces-"));
          dirs.push(dir);
          let now = 1_700_000_000_000;
          let last = 0;
          for (const step of steps) {
            // Each step is a new process: a fresh connection, the clock moved by `step`.
            now += step;
            const db = await openStateDb({ dir, synchronous: "NORMAL" });
            try {
              const nonce = new NonceStore(db, { clock: () => now }).next(SIGNERS[0]!);
              expect(nonce).toBeGreaterThan(last);
              expect(nonce).toBeGreaterThanOrEqual(now);
              last = nonce;
            } finally {
              db.close();
            }
          }
        },
      ),
      { numRuns: 50 },
    );
  });
});
