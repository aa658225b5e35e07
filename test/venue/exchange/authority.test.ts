// What a key may do for `account`, decided from the simulator's real userRole answers over 127.0.0.1;
// and what the exchange client does with the result: every L1 action for a sub-account carries (and
// signs) vaultAddress, and a user-signed action for it is refused before a nonce is taken. The
// simulator executes such a body on the sub-account, so these are checked end to end.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/lib/errors.js";
import { parseJson } from "../../../src/lib/json.js";
import { type Simulator, startSimulator } from "../../../src/simulator/index.js";
import {
  type Authority,
  checkOwnKey,
  decideAuthority,
  resolveAuthority,
} from "../../../src/venue/exchange/authority.js";
import { ExchangeClient } from "../../../src/venue/exchange/client.js";
import { InfoClient } from "../../../src/venue/info/client.js";
import { resolveEndpoints } from "../../../src/venue/networks.js";
import { SignerQueue } from "../../../src/venue/nonces.js";
import { privateKeySigner } from "../../../src/venue/signing/signer.js";
import { HttpTransport } from "../../../src/venue/transport/http.js";
import { type Cleanup, tempNonceStore } from "../../helpers/exchange.js";
import { independentL1Signer, type WireBody } from "../../helpers/independentSigning.js";
import { ADDR, HYPE_ASSET, KEYS, testScenario } from "../../simulator/fixtures.js";

const VAULT = "0x3333333333333333333333333333333333333333";
const OTHER_SUB = "0x4444444444444444444444444444444444444444";

let sim: Simulator & { url: string };
let transport: HttpTransport;
let info: InfoClient;
const cleanups: Cleanup[] = [];

beforeAll(async () => {
  sim = await startSimulator({
    clock: "virtual",
    rateLimit: false,
    scenario: testScenario({
      accounts: [
        { address: ADDR.trader, subAccounts: [{ address: ADDR.sub, name: "sub" }] },
        { address: ADDR.staker, subAccounts: [{ address: OTHER_SUB, name: "other" }] },
        { address: VAULT, role: "vault" },
      ],
      agents: [{ user: ADDR.trader, address: ADDR.agent, name: "bot" }],
      balances: {
        [ADDR.trader]: { USDC: "100" },
        [ADDR.sub]: { USDC: "10000" },
        [ADDR.staker]: { HYPE: "5" },
      },
    }),
  });
  transport = new HttpTransport({ endpoints: resolveEndpoints("testnet", sim.url), budget: null });
  info = new InfoClient(transport);
});
afterAll(async () => {
  await transport?.close();
  await sim?.stop();
});
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function refusal(signer: string, account: string): Promise<string> {
  const err = await resolveAuthority(info, signer, account).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  return (err as Error).message;
}

describe("resolveAuthority (userRole of the key and of the account)", () => {
  it("the account's own key, or an API wallet of it, acts without vaultAddress", async () => {
    // An API wallet as its own account (the bot file's `account` left empty) is refused with the fix:
    // its own address holds nothing, and every run skipped for "no USDC available" with exit 0 (a
    // multi-account trial). The key's own account is asked for that one role.
    expect(() =>
      decideAuthority(ADDR.agent, { role: "agent", data: { user: ADDR.trader } }, ADDR.agent, undefined),
    ).toThrow(`set \`account: ${ADDR.trader}\``);
    // Asked by checkOwnKey with the first read of the venue (the runtime's facts), not at open.
    await expect(checkOwnKey(info, ADDR.agent)).rejects.toThrow(`the key is an API wallet of ${ADDR.trader}`);
    await expect(checkOwnKey(info, ADDR.trader)).resolves.toBeUndefined();
    // A fresh key the venue does not know yet is its own account.
    await expect(checkOwnKey(info, ADDR.stranger)).resolves.toBeUndefined();
    expect(await resolveAuthority(info, ADDR.trader, ADDR.trader)).toMatchObject({ kind: "own" });
    const agent = await resolveAuthority(info, ADDR.agent, ADDR.trader);
    expect(agent).toEqual({ kind: "agent", signer: ADDR.agent, account: ADDR.trader });
  });

  it("a sub-account is acted for with vaultAddress, by its master's key or an API wallet of the master", async () => {
    const byMaster = await resolveAuthority(info, ADDR.trader, ADDR.sub);
    expect(byMaster).toMatchObject({ kind: "subAccount", principal: ADDR.trader, vaultAddress: ADDR.sub });
    const byAgent = await resolveAuthority(info, ADDR.agent, ADDR.sub);
    expect(byAgent).toMatchObject({ kind: "subAccount", principal: ADDR.trader, vaultAddress: ADDR.sub });
  });

  it("a vault is acted for with vaultAddress (its leadership is the venue's to check)", async () => {
    expect(await resolveAuthority(info, ADDR.trader, VAULT)).toMatchObject({
      kind: "vault",
      vaultAddress: VAULT,
    });
  });

  it("refuses, with a reason, every key that cannot act for the account", async () => {
    expect(await refusal(ADDR.staker, ADDR.sub)).toMatch(`it is a sub-account of ${ADDR.trader}`);
    expect(await refusal(ADDR.agent, OTHER_SUB)).toMatch(`sub-account of ${ADDR.staker}, not of its master`);
    expect(await refusal(ADDR.staker, ADDR.trader)).toMatch("neither");
    expect(await refusal(ADDR.agent, ADDR.staker)).toMatch(`API wallet of ${ADDR.trader}`);
    // The account is an API wallet, not an account.
    expect(await refusal(ADDR.trader, ADDR.agent)).toMatch("is an API wallet");
    expect(await refusal(ADDR.trader, ADDR.stranger)).toMatch("does not know");
  });
});

describe("the exchange client acting for a sub-account", () => {
  async function clientFor(key: string, authority: Authority) {
    const { nonces } = await tempNonceStore(cleanups, () => sim.now());
    const client = new ExchangeClient({
      mode: "live",
      transport,
      network: "testnet",
      signer: privateKeySigner(key),
      account: authority.account,
      ...("vaultAddress" in authority ? { vaultAddress: authority.vaultAddress } : {}),
      nonces,
      clock: () => sim.now(),
      queue: new SignerQueue(),
      clockSkew: false,
    });
    return { client, nonces };
  }

  it("signs every L1 action with vaultAddress, and the venue executes it on the sub-account", async () => {
    const authority = await resolveAuthority(info, ADDR.agent, ADDR.sub);
    const { client } = await clientFor(KEYS.agent, authority);
    const placed = await client.twapOrder({
      asset: HYPE_ASSET,
      isBuy: true,
      size: "100",
      szDecimals: 2,
      minutes: 30,
    });
    expect(placed.status, JSON.stringify(placed)).toBe("accepted");
    const body = parseJson(placed.request.bodyText) as WireBody;
    expect(body.vaultAddress).toBe(ADDR.sub);
    expect(independentL1Signer(body, "testnet")).toBe(ADDR.agent);
    expect(placed.request.account).toBe(ADDR.sub);
    expect(sim.twaps(ADDR.sub)).toHaveLength(1);
    expect(sim.twaps(ADDR.trader)).toHaveLength(0);

    if (placed.status !== "accepted") return;
    const cancelled = await client.twapCancel({ asset: HYPE_ASSET, twapId: placed.data.twapId });
    expect(cancelled.status).toBe("accepted");
    expect((parseJson(cancelled.request.bodyText) as WireBody).vaultAddress).toBe(ADDR.sub);
  });

  it("refuses a user-signed (staking) action for a sub-account before taking a nonce", async () => {
    const authority = await resolveAuthority(info, ADDR.trader, ADDR.sub);
    const { client, nonces } = await clientFor(KEYS.trader, authority);
    const before = nonces.peek(ADDR.trader);
    const err = await client.cDeposit({ amount: "1" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(
      `cDeposit cannot be done for the sub-account or vault ${ADDR.sub}`,
    );
    expect(nonces.peek(ADDR.trader)).toBe(before);
    expect(sim.ledger().filter((e) => e.kind === "action" && e.data.type === "cDeposit")).toHaveLength(0);
  });

  it("the venue refuses a sub-account's vaultAddress from a key whose account is not its master", async () => {
    const { client } = await clientFor(KEYS.staker, {
      kind: "subAccount",
      signer: ADDR.staker,
      account: ADDR.sub,
      principal: ADDR.staker,
      vaultAddress: ADDR.sub,
    });
    const before = sim.twaps(ADDR.sub).length;
    const outcome = await client.twapOrder({
      asset: HYPE_ASSET,
      isBuy: true,
      size: "100",
      szDecimals: 2,
      minutes: 30,
    });
    expect(outcome.status).toBe("rejected");
    if (outcome.status === "rejected") expect(outcome.reason).toMatch(/vault/i);
    expect(sim.twaps(ADDR.sub)).toHaveLength(before);
  });
});
