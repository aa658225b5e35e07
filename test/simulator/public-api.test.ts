// The simulator's public API for the simulation harness (src/simulate/): what it reads of the venue
// without reaching into the simulator's internals.
import { describe, expect, it } from "vitest";
import { createSimulator } from "../../src/simulator/index.js";

describe("simulator public API for the harness", () => {
  it("names the scenario, lists tokens, and pairs with their mids", async () => {
    const sim = createSimulator({ seed: 7, clock: "virtual" });
    try {
      expect(sim.scenarioName).toBe("demo");
      const tokens = sim.tokens();
      expect(tokens[0]).toEqual({ name: "USDC", index: 0 });
      expect(tokens.map((t) => t.name)).toEqual(expect.arrayContaining(["PURR", "HYPE"]));
      const pairs = sim.pairs();
      expect(pairs.map(({ name, index, base, quote }) => ({ name, index, base, quote }))).toEqual(
        expect.arrayContaining([
          { name: "PURR/USDC", index: 0, base: "PURR", quote: "USDC" },
          { name: "@107", index: 107, base: "HYPE", quote: "USDC" },
        ]),
      );
      // Each pair's mid is the figure allMids answers, at this moment.
      const hype = () => sim.pairs().find((p) => p.name === "@107")!;
      expect(hype().mid.toFixed()).toBe(sim.price("@107").toFixed());
      sim.setPrice("@107", "31.5");
      expect(hype().mid.toFixed()).toBe("31.5");
    } finally {
      await sim.stop();
    }
  });
});
