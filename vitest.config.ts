import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // better-sqlite3 is a native addon and several suites spawn child processes: forks isolate both.
    pool: "forks",
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Tests only ever talk to 127.0.0.1. HLBOT_TEST marks a test process (runtime.ts reads it for its
    // pause-before-send hook); it guards no network.
    env: { HLBOT_TEST: "1" },
  },
});
