import { describe, expect, it } from "vitest";
import { didYouMean, formatIssue, knownKeysAt, levenshtein } from "../../../src/engine/config/issues.js";
import { botConfigSchema, strategyFileSchema } from "../../../src/engine/config/schema.js";

describe("did you mean", () => {
  it("measures edit distance", () => {
    expect(levenshtein("network", "network")).toBe(0);
    expect(levenshtein("netwrk", "network")).toBe(1);
    expect(levenshtein("kitten", "sitting")).toBe(3);
    expect(levenshtein("", "abc")).toBe(3);
  });

  it("suggests near misses, ignoring case, and nothing for unrelated words", () => {
    const keys = [
      "network",
      "baseUrl",
      "account",
      "wallet",
      "mode",
      "strategies",
      "state",
      "limits",
      "log",
      "venue",
    ];
    expect(didYouMean("netwrk", keys)).toBe("network");
    expect(didYouMean("stratgies", keys)).toBe("strategies");
    expect(didYouMean("baseURL", keys)).toBe("baseUrl");
    expect(didYouMean("limit", keys)).toBe("limits");
    expect(didYouMean("colour", keys)).toBeUndefined();
    expect(didYouMean("x", [])).toBeUndefined();
  });

  it("knows which keys each object accepts, following strategy kinds", () => {
    expect(knownKeysAt(botConfigSchema, [], {})).toContain("network");
    expect(knownKeysAt(botConfigSchema, ["limits"], {})).toEqual([
      "maxOrderUsd",
      "maxDailyNotionalUsd",
      "maxStakeMovePerDay",
      "validatorAllowlist",
      "killSwitchFile",
      "killSwitchCancelRunning",
      "priceSanity",
      "keepOnSpot",
    ]);
    const staking = { kind: "validator-staking", params: { stakeIdleSpot: {} } };
    expect(knownKeysAt(strategyFileSchema, ["params"], staking)).toContain("rebalanceThreshold");
    expect(knownKeysAt(strategyFileSchema, ["params", "stakeIdleSpot"], staking)).toEqual([
      "enabled",
      "keepSpot",
    ]);
    expect(knownKeysAt(strategyFileSchema, ["params", "twap"], { kind: "twap-accumulate" })).toEqual([
      "minutes",
      "randomize",
      "maxDeviation",
      "maxParticipation",
      "maxMinutes",
    ]);
    expect(knownKeysAt(strategyFileSchema, ["params"], { kind: "nope" })).toEqual([]);
  });

  it("formats an issue as file:line: key: message", () => {
    expect(formatIssue({ file: "a.yaml", line: 3, keyPath: "limits.maxOrderUsd", message: "bad" })).toBe(
      "a.yaml:3: limits.maxOrderUsd: bad",
    );
    expect(formatIssue({ file: "a.yaml", line: undefined, keyPath: "", message: "bad" })).toBe("a.yaml: bad");
  });
});
