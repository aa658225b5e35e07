// The simulator's public API for the simulation harness (src/simulate/): what it reads of the venue
// without reaching into the simulator's internals.
import { describe, expect, it } from "vitest";
import { createSimulator } from "../../src/simulator/index.js";

describe("simulator public API for the harness", () => {
  it("names the scenario, lists tokens and pairs, and values a coin in the quote token", async () => {
    const sim = createSimulator({ seed: 7, clock: "virtual" });
    try {
      expect(sim.scenarioName).toBe("demo");
      const tokens = sim.tokens();
      expect(tokens[0]).toEqual({ name: "USDC", index: 0 });
      expect(tokens.map((t) => t.name)).toEqual(expect.arrayContaining(["PURR", "HYPE"]));
      expect(sim.pairs()).toEqual(
        expect.arrayContaining([
          { name: "PURR/USDC", base: "PURR", quote: "USDC" },
          { name: "@107", base: "HYPE", quote: "USDC" },
        ]),
      );
      expect(sim.valueOf("USDC")?.toFixed()).toBe("1");
      // HYPE is valued at its pair's mid, the same figure allMids answers.
      expect(sim.valueOf("HYPE")?.toFixed()).toBe(sim.price("@107").toFixed());
      sim.setPrice("@107", "31.5");
      expect(sim.valueOf("HYPE")?.toFixed()).toBe("31.5");
      expect(sim.valueOf("NOPE")).toBeUndefined();
    } finally {
      await sim.stop();
    }
  });
});
