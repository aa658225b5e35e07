// Who exists on the simulated venue and how accounts relate: known users, sub-accounts and their
// masters, API wallets (agents) with their expiry, staking links, and the per-account answers the
// scenario configures (referral stage, VIP flag, multi-sig signers, role).
import type { Scenario, ScenarioAccount } from "./scenario.js";

export interface SubAccount {
  address: string;
  master: string;
  name: string;
  abstraction: "unifiedAccount" | "portfolioMargin" | "disabled" | undefined;
}

export interface Agent {
  address: string;
  /** The account that approved it. */
  master: string;
  /** "" for the unnamed agent. */
  name: string;
  validUntil: number;
  approvedAt: number;
}

export interface StakingLink {
  trading: string;
  staking: string;
  status: "requested" | "linked";
}

export class Accounts {
  private readonly users = new Set<string>();
  readonly profiles = new Map<string, ScenarioAccount>();
  private readonly subs = new Map<string, SubAccount>();
  private readonly subsByMaster = new Map<string, SubAccount[]>();
  private readonly agents = new Map<string, Agent>();
  /** Keyed by trading user. */
  private readonly links = new Map<string, StakingLink>();
  /** Keyed by staking user (finalized links only). */
  private readonly linksByStaking = new Map<string, StakingLink>();

  constructor(scenario: Scenario, now: number, agentValidity: number) {
    for (const a of scenario.accounts) {
      this.profiles.set(a.address, a);
      this.users.add(a.address);
      for (const s of a.subAccounts) {
        const sub: SubAccount = {
          address: s.address,
          master: a.address,
          name: s.name,
          abstraction: s.abstraction,
        };
        this.subs.set(s.address, sub);
        this.subsByMaster.set(a.address, [...(this.subsByMaster.get(a.address) ?? []), sub]);
        this.users.add(s.address);
      }
      if (a.stakingLink) {
        const link: StakingLink = {
          trading: a.address,
          staking: a.stakingLink.stakingUser,
          status: a.stakingLink.status,
        };
        this.links.set(a.address, link);
        if (link.status === "linked") this.linksByStaking.set(link.staking, link);
      }
    }
    for (const user of Object.keys(scenario.balances)) this.users.add(user.toLowerCase());
    for (const user of Object.keys(scenario.staking)) this.users.add(user.toLowerCase());
    for (const d of scenario.delegations) this.users.add(d.user);
    for (const ag of scenario.agents) {
      this.addAgent({
        address: ag.address,
        master: ag.user,
        name: ag.name,
        validUntil: now + (ag.validFor ?? agentValidity),
        approvedAt: now,
      });
    }
  }

  /** Marks an address as an existing user (it received funds or was declared). */
  touch(address: string): void {
    this.users.add(address);
  }

  exists(address: string): boolean {
    return this.users.has(address);
  }

  allUsers(): string[] {
    return [...this.users].sort();
  }

  subAccount(address: string): SubAccount | undefined {
    return this.subs.get(address);
  }

  subAccountsOf(master: string): SubAccount[] {
    return this.subsByMaster.get(master) ?? [];
  }

  /** An agent that is valid at `now`. */
  agent(address: string, now: number): Agent | undefined {
    const a = this.agents.get(address);
    return a && a.validUntil > now ? a : undefined;
  }

  agentsOf(master: string, now: number): Agent[] {
    return [...this.agents.values()].filter((a) => a.master === master && a.validUntil > now);
  }

  /** Registers an agent, replacing the master's agent with the same name. Returns replaced addresses. */
  addAgent(agent: Agent): string[] {
    const replaced: string[] = [];
    for (const [addr, a] of this.agents)
      if (a.master === agent.master && a.name === agent.name) {
        this.agents.delete(addr);
        replaced.push(addr);
      }
    this.agents.set(agent.address, agent);
    return replaced;
  }

  link(trading: string): StakingLink | undefined {
    return this.links.get(trading);
  }

  linkByStaking(staking: string): StakingLink | undefined {
    return this.linksByStaking.get(staking);
  }

  requestLink(trading: string, staking: string): StakingLink {
    const link: StakingLink = { trading, staking, status: "requested" };
    this.links.set(trading, link);
    return link;
  }

  finalizeLink(link: StakingLink): void {
    link.status = "linked";
    this.linksByStaking.set(link.staking, link);
  }
}
