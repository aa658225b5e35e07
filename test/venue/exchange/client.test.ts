import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, ValidationError } from "../../../src/lib/errors.js";
import { parseJson, stringifyJson } from "../../../src/lib/json.js";
import { clearSecretsForTests, registerSecret } from "../../../src/lib/secrets.js";
import { ClockSkewMonitor } from "../../../src/venue/clockSkew.js";
import { ExchangeClient, type SignedRequest } from "../../../src/venue/exchange/client.js";
import { recoverL1Signer } from "../../../src/venue/signing/l1.js";
import { recoverUserSignedSigner } from "../../../src/venue/signing/userSigned.js";
import {
  ACCOUNT_ADDRESS,
  ACCOUNT_KEY,
  AGENT_ADDRESS,
  accountSigner,
  agentSigner,
  type Cleanup,
  liveSetup,
  nonceTrackingVenue,
  OK_DEFAULT,
  tempNonceStore,
  twapRunning,
  VALIDATOR,
} from "../../helpers/exchange.js";
import { startHttpServer } from "../../helpers/httpServer.js";

const cleanups: Cleanup[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
  clearSecretsForTests();
});

const NOW = 1_750_000_000_000;
const TWAP = { asset: 10107, isBuy: true, size: "12.50", szDecimals: 2, minutes: 30 } as const;

describe("L1 actions (twapOrder, twapCancel)", () => {
  it("sends {action, nonce, signature, expiresAfter} with expiresAfter = now + 60 s and returns the twapId", async () => {
    const { server, client } = await liveSetup(cleanups, [{ json: twapRunning(77738308) }], {
      clock: () => NOW,
    });
    const outcome = await client.twapOrder(TWAP);

    expect(outcome.status).toBe("accepted");
    if (outcome.status !== "accepted") return;
    expect(outcome.data).toEqual({ twapId: 77738308 });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.path).toBe("/exchange");
    expect(server.requests[0]!.body).toBe(outcome.request.bodyText);

    const body = parseJson(outcome.request.bodyText) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(["action", "nonce", "signature", "expiresAfter"]);
    expect(body.action).toEqual({
      type: "twapOrder",
      twap: { a: 10107, b: true, s: "12.5", r: false, m: 30, t: false },
    });
    expect(body.nonce).toBe(NOW);
    expect(body.expiresAfter).toBe(NOW + 60_000);
    expect(
      recoverL1Signer({
        action: body.action as Record<string, unknown>,
        nonce: NOW,
        expiresAfter: NOW + 60_000,
        network: "testnet",
        signature: body.signature,
      }),
    ).toBe(ACCOUNT_ADDRESS);
  });

  it("lets an API wallet sign for a sub-account through vaultAddress (lower-cased on the wire)", async () => {
    const vault = "0x1719884eB866cb12b2287399B15f7db5e7d775EA";
    const { client, server } = await liveSetup(
      cleanups,
      [{ json: { status: "ok", response: { type: "twapCancel", data: { status: "success" } } } }],
      { signer: agentSigner(), account: ACCOUNT_ADDRESS, clock: () => NOW, expiresAfterMs: 5_000 },
    );
    const outcome = await client.twapCancel({ asset: 10107, twapId: 5 }, { vaultAddress: vault });
    expect(outcome.status).toBe("accepted");
    const body = server.requests[0]!.json as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(["action", "nonce", "signature", "vaultAddress", "expiresAfter"]);
    expect(body.vaultAddress).toBe(vault.toLowerCase());
    expect(body.expiresAfter).toBe(NOW + 5_000);
    expect(
      recoverL1Signer({
        action: body.action as Record<string, unknown>,
        nonce: body.nonce as number,
        vaultAddress: vault,
        expiresAfter: NOW + 5_000,
        network: "testnet",
        signature: body.signature,
      }),
    ).toBe(AGENT_ADDRESS);
  });

  it("reports a twapOrder {error} status and a twapCancel {error} status as rejected, without resending", async () => {
    const { client, server } = await liveSetup(cleanups, [
      {
        json: {
          status: "ok",
          response: { type: "twapOrder", data: { status: { error: "Invalid TWAP duration: 1 min(s)" } } },
        },
      },
      {
        json: {
          status: "ok",
          response: {
            type: "twapCancel",
            data: { status: { error: "TWAP was never placed, already canceled, or filled." } },
          },
        },
      },
    ]);
    const order = await client.twapOrder(TWAP);
    expect(order).toMatchObject({
      status: "rejected",
      code: "venue",
      reason: "Invalid TWAP duration: 1 min(s)",
    });
    const cancel = await client.twapCancel({ asset: 10107, twapId: 1 });
    expect(cancel).toMatchObject({
      status: "rejected",
      reason: "TWAP was never placed, already canceled, or filled.",
    });
    expect(server.requests).toHaveLength(2);
  });

  it("omits expiresAfter when the time to live is disabled", async () => {
    const { client, server } = await liveSetup(cleanups, [{ json: twapRunning(1) }], {
      expiresAfterMs: null,
    });
    await client.twapOrder(TWAP);
    expect(Object.keys(server.requests[0]!.json as object)).toEqual(["action", "nonce", "signature"]);
  });
});

describe("user-signed actions", () => {
  it("tokenDelegate: no expiresAfter or vaultAddress, inner nonce = outer nonce, integer wei", async () => {
    const { client, server } = await liveSetup(cleanups, [{ json: OK_DEFAULT }], { clock: () => NOW });
    const outcome = await client.tokenDelegate({
      validator: VALIDATOR.toUpperCase().replace("0X", "0x"),
      amount: "1.5",
      isUndelegate: false,
    });
    expect(outcome).toMatchObject({ status: "accepted", data: null });
    const raw = server.requests[0]!.body;
    expect(raw).toContain('"wei":150000000,');
    const body = parseJson(raw) as { action: Record<string, unknown>; nonce: number; signature: unknown };
    expect(Object.keys(body)).toEqual(["action", "nonce", "signature"]);
    expect(body.action).toEqual({
      type: "tokenDelegate",
      signatureChainId: "0x66eee",
      hyperliquidChain: "Testnet",
      validator: VALIDATOR,
      wei: 150000000,
      isUndelegate: false,
      nonce: NOW,
    });
    expect(body.nonce).toBe(NOW);
    expect(recoverUserSignedSigner(body.action, "tokenDelegate", body.signature)).toBe(ACCOUNT_ADDRESS);
  });

  it("cDeposit, cWithdraw, linkStakingUser and approveAgent accept {status:ok, response:{type:default}}", async () => {
    const { client, server } = await liveSetup(cleanups, [{ json: OK_DEFAULT }]);
    const results = [
      await client.cDeposit({ amount: "2" }),
      await client.cWithdraw({ amount: "0.00000001" }),
      await client.linkStakingUser({ user: VALIDATOR, isFinalize: true }),
      await client.approveAgent({ agentAddress: AGENT_ADDRESS, agentName: "bot" }),
    ];
    expect(results.map((r) => r.status)).toEqual(["accepted", "accepted", "accepted", "accepted"]);
    const actions = server.requests.map((r) => (r.json as { action: { type: string } }).action);
    expect(actions.map((a) => a.type)).toEqual(["cDeposit", "cWithdraw", "linkStakingUser", "approveAgent"]);
    expect(actions[0]).toMatchObject({ wei: 200000000 });
    expect(actions[1]).toMatchObject({ wei: 1 });
    // Nonces are strictly increasing even though the four calls fell in the same millisecond or not.
    const nonces = server.requests.map((r) => (r.json as { nonce: number }).nonce);
    for (let i = 1; i < nonces.length; i++) expect(nonces[i]).toBeGreaterThan(nonces[i - 1]!);
  });

  it("refuses, before signing or sending anything, a user-signed action whose signer is not the account", async () => {
    const { client, server, nonces } = await liveSetup(cleanups, [{ json: OK_DEFAULT }], {
      signer: agentSigner(),
      account: ACCOUNT_ADDRESS,
    });
    const attempts = [
      () => client.tokenDelegate({ validator: VALIDATOR, amount: "1", isUndelegate: false }),
      () => client.cDeposit({ amount: "1" }),
      () => client.cWithdraw({ amount: "1" }),
      () => client.linkStakingUser({ user: VALIDATOR, isFinalize: false }),
      () => client.sign({ type: "cDeposit", params: { amount: "1" } }),
    ];
    for (const attempt of attempts) {
      const error = await attempt().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain(AGENT_ADDRESS);
      expect((error as Error).message).toContain("account's own key");
    }
    expect(server.requests).toHaveLength(0);
    expect(nonces.last(AGENT_ADDRESS)).toBeUndefined();
  });

  it("refuses bad input with a ValidationError before any nonce is taken", async () => {
    const { client, server, nonces } = await liveSetup(cleanups, [{ json: OK_DEFAULT }]);
    await expect(client.cDeposit({ amount: "0.000000001" })).rejects.toBeInstanceOf(ValidationError);
    await expect(
      client.tokenDelegate({ validator: "0x12", amount: "1", isUndelegate: false }),
    ).rejects.toThrow("validator");
    await expect(client.twapOrder({ ...TWAP, minutes: 1 })).rejects.toThrow("minutes");
    expect(server.requests).toHaveLength(0);
    expect(nonces.last(ACCOUNT_ADDRESS)).toBeUndefined();
  });
});

describe("venue refusals", () => {
  it("a {status:err} answer is rejected with the venue's words and never resent", async () => {
    const reason = "Must deposit before performing actions. User: 0xabc";
    const { client, server } = await liveSetup(cleanups, [{ json: { status: "err", response: reason } }]);
    const outcome = await client.cDeposit({ amount: "1" });
    expect(outcome).toMatchObject({ status: "rejected", code: "venue", reason });
    expect(server.requests).toHaveLength(1);
  });

  it("HTTP 422 is rejected and never resent", async () => {
    const { client, server } = await liveSetup(cleanups, [
      { status: 422, text: "Failed to deserialize the JSON body into the target type" },
    ]);
    const outcome = await client.twapOrder(TWAP);
    expect(outcome).toMatchObject({ status: "rejected", code: "unprocessable" });
    if (outcome.status === "rejected") expect(outcome.reason).toContain("Failed to deserialize");
    expect(server.requests).toHaveLength(1);
  });
});

describe("hooks, sign-only and dry-run", () => {
  it("awaits beforeSend inside the slot with the exact request, before the venue sees it", async () => {
    const { client, server } = await liveSetup(cleanups, [{ json: OK_DEFAULT }]);
    const seen: { request: SignedRequest; requestsAtHook: number }[] = [];
    const outcome = await client.cDeposit(
      { amount: "1" },
      {
        beforeSend: async (request) => {
          await new Promise((r) => setTimeout(r, 20));
          seen.push({ request, requestsAtHook: server.requests.length });
        },
      },
    );
    expect(seen).toHaveLength(1);
    expect(seen[0]!.requestsAtHook).toBe(0);
    expect(seen[0]!.request).toBe(outcome.request);
    expect(server.requests[0]!.body).toBe(seen[0]!.request.bodyText);
  });

  it("sends nothing when beforeSend throws", async () => {
    const { client, server } = await liveSetup(cleanups, [{ json: OK_DEFAULT }]);
    await expect(
      client.cDeposit(
        { amount: "1" },
        {
          beforeSend: () => {
            throw new Error("journal is full");
          },
        },
      ),
    ).rejects.toThrow("journal is full");
    // The queue is not stuck: the next call goes through.
    expect((await client.cDeposit({ amount: "1" })).status).toBe("accepted");
    expect(server.requests).toHaveLength(1);
  });

  it("sign() reserves a nonce without sending; send() later POSTs exactly those bytes", async () => {
    const { client, server, nonces } = await liveSetup(cleanups, [{ json: twapRunning(9) }]);
    const request = await client.sign({ type: "twapOrder", params: TWAP });
    expect(server.requests).toHaveLength(0);
    expect(nonces.last(ACCOUNT_ADDRESS)).toBe(request.nonce);
    const outcome = await client.send(request);
    expect(outcome).toMatchObject({ status: "accepted", data: { twapId: 9 } });
    expect(server.requests[0]!.body).toBe(request.bodyText);
  });

  it("send() of bytes an earlier copy of which may have landed never reports them refused", async () => {
    // The venue answers an earlier copy's nonce with "duplicate nonce" (the copy landed): a caller
    // trusting `rejected` would place the order again. Review of 2026-11-27.
    const { client, server } = await liveSetup(
      cleanups,
      nonceTrackingVenue(() => ({ json: twapRunning(42) })),
    );
    const request = await client.sign({ type: "twapOrder", params: TWAP });
    expect((await client.send(request)).status).toBe("accepted");
    const again = await client.send(request);
    expect(server.requests).toHaveLength(2);
    expect(again).toMatchObject({ status: "unknown", probablyLanded: true });

    // Any other refusal says nothing certain about the earlier copy; nor does a connection refused.
    const other = await liveSetup(cleanups, [{ json: { status: "err", response: "Insufficient balance" } }]);
    const signed = await other.client.sign({ type: "twapOrder", params: TWAP });
    expect(await other.client.send(signed)).toMatchObject({ status: "unknown", probablyLanded: false });
    const gone = await liveSetup(cleanups, [{ json: twapRunning(1) }]);
    const third = await gone.client.sign({ type: "twapOrder", params: TWAP });
    await gone.server.close();
    expect((await gone.client.send(third)).status).toBe("unknown");
    // A first send (not a resend) refused by the venue stays a refusal.
    const fresh = await liveSetup(cleanups, [{ json: { status: "err", response: "Insufficient balance" } }]);
    expect((await fresh.client.twapOrder(TWAP)).status).toBe("rejected");
  });

  it("dry-run signs exactly what live would send, never connects, and does not move the nonce counter", async () => {
    const server = await startHttpServer([{ json: OK_DEFAULT }]);
    cleanups.push(() => server.close());
    const { nonces } = await tempNonceStore(cleanups, () => NOW);
    nonces.next(ACCOUNT_ADDRESS); // some earlier live use
    const dry = new ExchangeClient({
      mode: "dry-run",
      network: "testnet",
      signer: accountSigner(),
      nonces,
      clock: () => NOW,
    });
    const outcome = await dry.tokenDelegate({ validator: VALIDATOR, amount: "3", isUndelegate: true });
    expect(outcome.status).toBe("dry-run");
    expect(outcome.request.nonce).toBe(NOW + 1);
    expect(nonces.last(ACCOUNT_ADDRESS)).toBe(NOW); // peeked, not reserved
    expect(dry.mode).toBe("dry-run");
    // The client has no transport to call; even send() of a signed request only hands it back.
    expect(await dry.send(outcome.request)).toEqual({ status: "dry-run", request: outcome.request });
    expect(server.requests).toHaveLength(0);

    // A live client at the same moment produces the same bytes.
    const live = await liveSetup(cleanups, [{ json: OK_DEFAULT }], { nonces, clock: () => NOW });
    const sent = await live.client.tokenDelegate({ validator: VALIDATOR, amount: "3", isUndelegate: true });
    expect(sent.request.bodyText).toBe(outcome.request.bodyText);
    expect(server.requests).toHaveLength(0);
  });

  it("keeps one signer's requests in nonce order on the wire, even when an earlier one is slow", async () => {
    const arrivals: { nonce: number; at: number }[] = [];
    const answered: number[] = [];
    const { client } = await liveSetup(cleanups, (request, index) => {
      arrivals.push({ nonce: (request.json as { nonce: number }).nonce, at: answered.length });
      return { json: OK_DEFAULT, delayMs: index === 0 ? 150 : 0 };
    });
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        client.cDeposit({ amount: "1" }).then((o) => {
          answered.push(i);
          return o;
        }),
      ),
    );
    const nonces = outcomes.map((o) => o.request.nonce);
    expect(arrivals.map((a) => a.nonce)).toEqual(nonces);
    for (let i = 1; i < nonces.length; i++) expect(nonces[i]).toBeGreaterThan(nonces[i - 1]!);
    // Each request arrived only after the previous one was answered.
    expect(arrivals.map((a) => a.at)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe("clock skew", () => {
  it("warns once when the venue's Date header differs by more than the threshold", async () => {
    const warnings: string[] = [];
    const serverDate = new Date(NOW + 60_000).toUTCString();
    const { client } = await liveSetup(cleanups, [{ json: OK_DEFAULT, headers: { date: serverDate } }], {
      clock: () => NOW,
      clockSkew: new ClockSkewMonitor({ clock: () => NOW, warn: (m) => warnings.push(m) }),
    });
    await client.cDeposit({ amount: "1" });
    await client.cDeposit({ amount: "1" });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/about 1 min behind the venue/);
    expect(client.clockSkew?.last?.excessive).toBe(true);
  });

  it("stays quiet within the threshold", async () => {
    const warnings: string[] = [];
    const { client } = await liveSetup(
      cleanups,
      [{ json: OK_DEFAULT, headers: { date: new Date(NOW + 3_000).toUTCString() } }],
      {
        clock: () => NOW,
        clockSkew: { clock: () => NOW, warn: (m) => warnings.push(m) },
      },
    );
    await client.cDeposit({ amount: "1" });
    expect(warnings).toEqual([]);
    expect(client.clockSkew?.last?.excessive).toBe(false);
  });
});

describe("secrets", () => {
  it("never puts the private key in a request, an outcome or an error", async () => {
    registerSecret(ACCOUNT_KEY);
    const { client } = await liveSetup(cleanups, [
      { json: { status: "err", response: "nope" } },
      { status: 500, text: "boom" },
    ]);
    const rejected = await client.cDeposit({ amount: "1" });
    const unknown = await client.twapOrder(TWAP);
    const refused = await client.cDeposit({ amount: "-1" }).catch((e: unknown) => e);
    const text = [
      stringifyJson(rejected),
      stringifyJson({ ...unknown, cause: String((unknown as { cause?: unknown }).cause) }),
      String(refused),
    ].join("\n");
    const bare = ACCOUNT_KEY.slice(2);
    expect(text.toLowerCase()).not.toContain(bare);
    expect(text).toContain("nope");
  });
});
