import { describe, expect, it } from "vitest";
import type { Decision } from "../../../src/engine/intents.js";
import type { StakingLink } from "../../../src/engine/snapshot.js";
import { linkStaking, linkStakingParams } from "../../../src/engine/strategies/linkStaking.js";
import { ACCOUNT, addr, buildSnapshot, T0 } from "../../helpers/snapshots.js";

const PEER = addr(42);
const OTHER = addr(43);

function run(stakingLink: StakingLink, params: Record<string, unknown> = {}): Decision[] {
  const p = linkStakingParams.parse({ counterparty: PEER, ...params });
  return linkStaking.decide(buildSnapshot({ stakingLink }), p, T0, {}, "link");
}

describe("link-staking", () => {
  it("proposes the link from the trading account when there is none", () => {
    expect(run(null)).toEqual([
      expect.objectContaining({ kind: "linkStakingUser", user: PEER, isFinalize: false, strategy: "link" }),
    ]);
  });

  it("finalizes from the staking account when asked", () => {
    const [d] = run(null, { finalize: true });
    expect(d).toMatchObject({ kind: "linkStakingUser", user: PEER, isFinalize: true });
    expect(d?.reason).toMatch(/permanent/);
  });

  it("sends nothing to a placeholder counterparty (the shipped example's default), however the link stands", () => {
    for (const counterparty of [
      "0x0000000000000000000000000000000000000001",
      "0x0000000000000000000000000000000000000000",
    ]) {
      const [d] = run(null, { counterparty });
      expect(d?.kind).toBe("skip");
      expect(d?.reason).toMatch(/is a placeholder, not an account .* a link is permanent/);
    }
    // A real address with leading zeros (a vanity address) is an account.
    expect(run(null, { counterparty: "0x000000000056f99d36b6f2e0c51fd41496bbacb8" })[0]?.kind).toBe(
      "linkStakingUser",
    );
  });

  it("does not touch a link of a kind hlbot cannot read (issue #11), whatever finalize says", () => {
    for (const finalize of [false, true]) {
      const [d] = run({ type: "unknown", venueType: "pendingFinalization", peer: PEER }, { finalize });
      expect(d?.kind).toBe("skip");
      expect(d?.reason).toMatch(/kind hlbot does not know \("pendingFinalization" with 0x/);
    }
  });

  it("skips once the link is requested or established with the counterparty", () => {
    for (const link of [
      { type: "requested", stakingUser: PEER },
      { type: "tradingUser", stakingUser: PEER },
      { type: "stakingUser", tradingUser: PEER },
    ] as const) {
      const decisions = run(link, { finalize: link.type === "stakingUser" });
      expect(decisions).toHaveLength(1);
      expect(decisions[0]?.kind).toBe("skip");
      expect(decisions[0]?.reason).toMatch(/^nothing to do/);
    }
  });

  it("never touches a link with someone else", () => {
    const [d] = run({ type: "tradingUser", stakingUser: OTHER });
    expect(d?.kind).toBe("skip");
    expect(d?.reason).toMatch(new RegExp(`already linked to staking account ${OTHER}.*permanent`));
  });

  it("refuses to link the account to itself and normalises the counterparty", () => {
    expect(run(null, { counterparty: ACCOUNT })[0]?.reason).toMatch(/itself/);
    const upper = `0x${PEER.slice(2).toUpperCase()}`;
    expect(run(null, { counterparty: upper })[0]).toMatchObject({ user: PEER });
  });
});
