// Answers to POST /exchange of the simulated venue: deserialize, authenticate, check nonces, execute.
//
// Like the venue, the action is deserialized into its typed form and re-serialized canonically before
// the L1 hash is computed: extra keys, a different key order or a non-canonical decimal ("1.50") in
// what the client signed therefore recover a different address and get "User or API Wallet 0x… does
// not exist.", exactly the failure a real client meets. Signatures are recovered with hlbot's own
// signing module (src/venue/signing) for the configured network.
//
// Order of checks: body shape (422) → signature recovery → expiry → signer known / agent rights →
// vault rights → nonce. An action that passes them consumes its nonce and is recorded as a transaction
// (with its error, if it then fails), visible in txDetails and the ledger.
import { keccak_256 } from "@noble/hashes/sha3";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils";
import { z } from "zod";
import { Decimal, toWireDecimal } from "../lib/decimal.js";
import { ValidationError } from "../lib/errors.js";
import { stringifyJson } from "../lib/json.js";
import { ADDRESS_PATTERN } from "../venue/constants.js";
import { NETWORKS } from "../venue/networks.js";
import { recoverL1Signer } from "../venue/signing/l1.js";
import { recoverUserSignedSigner, signingKindOf, type UserSignedKind } from "../venue/signing/userSigned.js";
import type { VenueCore } from "./core.js";

export type ExchangeAnswer = { kind: "json"; body: unknown; weight: number } | { kind: "unprocessable" };

// ---- wire schemas (the venue's deserializer) ---------------------------------------------------------

const HEX_ADDRESS = ADDRESS_PATTERN;
const address = z.string().regex(HEX_ADDRESS);
const uint = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
/** uint64: a JSON integer, possibly beyond 2^53 (parsed as bigint). */
const uint64 = z.union([uint, z.bigint().refine((v) => v >= 0n && v < 1n << 64n)]);
const decimalString = z.string().regex(/^\d+(\.\d+)?$/);

const envelopeSchema = z.looseObject({
  action: z.looseObject({ type: z.string() }),
  nonce: uint,
  signature: z.looseObject({ r: z.string(), s: z.string(), v: z.number().int() }),
  vaultAddress: address.nullable().optional(),
  expiresAfter: uint.nullable().optional(),
});

const twapOrderSchema = z.looseObject({
  type: z.literal("twapOrder"),
  twap: z.looseObject({
    a: uint,
    b: z.boolean(),
    s: decimalString,
    r: z.boolean(),
    m: uint,
    t: z.boolean(),
  }),
  details: z
    .looseObject({
      t: z.looseObject({ p: decimalString, a: z.boolean() }).nullable().optional(),
      s: decimalString.nullable().optional(),
    })
    .nullable()
    .optional(),
});

const twapCancelSchema = z.looseObject({ type: z.literal("twapCancel"), a: uint, t: uint });
const noopSchema = z.looseObject({ type: z.literal("noop") });

const userHeader = {
  signatureChainId: z.string().regex(/^0x[0-9a-fA-F]{1,16}$/),
  hyperliquidChain: z.string(),
  nonce: uint,
};
const cTransferSchema = z.looseObject({
  type: z.enum(["cDeposit", "cWithdraw"]),
  ...userHeader,
  wei: uint64,
});
const tokenDelegateSchema = z.looseObject({
  type: z.literal("tokenDelegate"),
  ...userHeader,
  validator: address,
  wei: uint64,
  isUndelegate: z.boolean(),
});
const linkStakingUserSchema = z.looseObject({
  type: z.literal("linkStakingUser"),
  ...userHeader,
  user: address,
  isFinalize: z.boolean(),
});
const approveAgentSchema = z.looseObject({
  type: z.literal("approveAgent"),
  ...userHeader,
  agentAddress: address,
  agentName: z.string().nullable().optional(),
});

type TwapOrderWire = z.output<typeof twapOrderSchema>;

/** Canonical re-serialization of an L1 action: the typed fields only, in the venue's key order. */
function canonicalL1(action: Record<string, unknown>): Record<string, unknown> | undefined {
  switch (action.type) {
    case "twapOrder": {
      const p = twapOrderSchema.safeParse(action);
      if (!p.success) return undefined;
      const w = p.data.twap;
      const out: Record<string, unknown> = {
        type: "twapOrder",
        twap: { a: w.a, b: w.b, s: toWireDecimal(new Decimal(w.s)), r: w.r, m: w.m, t: w.t },
      };
      if ("details" in action) out.details = canonicalDetails(p.data.details);
      return out;
    }
    case "twapCancel": {
      const p = twapCancelSchema.safeParse(action);
      return p.success ? { type: "twapCancel", a: p.data.a, t: p.data.t } : undefined;
    }
    case "noop":
      return noopSchema.safeParse(action).success ? { type: "noop" } : undefined;
    default:
      return undefined;
  }
}

function canonicalDetails(d: TwapOrderWire["details"]): unknown {
  if (d == null) return null;
  return {
    t: d.t == null ? null : { p: toWireDecimal(new Decimal(d.t.p)), a: d.t.a },
    s: d.s == null ? null : toWireDecimal(new Decimal(d.s)),
  };
}

const USER_SCHEMAS: Partial<Record<UserSignedKind, z.ZodType>> = {
  cDeposit: cTransferSchema,
  cWithdraw: cTransferSchema,
  tokenDelegate: tokenDelegateSchema,
  linkStakingUser: linkStakingUserSchema,
  approveAgent: approveAgentSchema,
};

// ---- answers ---------------------------------------------------------------------------------------

function err(message: string): unknown {
  return { status: "err", response: message };
}
const DEFAULT_OK = { status: "ok", response: { type: "default" } };

function txHash(parts: Record<string, unknown>): string {
  return `0x${bytesToHex(keccak_256(utf8ToBytes(stringifyJson(parts))))}`;
}

/** Answers one exchange body (already parsed from JSON with big integers kept exact). */
export function answerExchange(core: VenueCore, body: unknown): ExchangeAnswer {
  const env = envelopeSchema.safeParse(body);
  if (!env.success) return { kind: "unprocessable" };
  const { nonce, signature } = env.data;
  const vaultAddress = env.data.vaultAddress ?? null;
  const expiresAfter = env.data.expiresAfter ?? null;
  const rawAction = env.data.action as Record<string, unknown>;
  const type = rawAction.type as string;
  const json = (b: unknown): ExchangeAnswer => ({ kind: "json", body: b, weight: 1 });
  const m = core.messages;
  const now = core.now();

  const kind = signingKindOf(type);
  let action: Record<string, unknown>;
  let signer: string;
  if (kind === "l1") {
    const canonical = canonicalL1(rawAction);
    if (!canonical) {
      // A real L1 action this simulator does not implement is deserializable by the venue.
      return type === "twapOrder" || type === "twapCancel" || type === "noop"
        ? { kind: "unprocessable" }
        : json(err(m.unsupportedAction(type)));
    }
    action = canonical;
    try {
      signer = recoverL1Signer({
        action,
        nonce,
        vaultAddress,
        expiresAfter,
        network: core.network,
        signature,
      });
    } catch (e) {
      if (e instanceof ValidationError)
        return json(err(m.unknownL1Signer(invalidSignatureAddress(signature))));
      throw e;
    }
  } else if (kind === "user") {
    const schema = USER_SCHEMAS[type as UserSignedKind];
    if (!schema) return json(err(m.unsupportedAction(type)));
    const p = schema.safeParse(rawAction);
    if (!p.success) return { kind: "unprocessable" };
    action = rawAction;
    const chain = action.hyperliquidChain;
    if (chain !== NETWORKS[core.network].hyperliquidChain) return json(err(m.wrongChain(String(chain))));
    if (action.nonce !== nonce) return json(err(m.innerNonceMismatch));
    try {
      signer = recoverUserSignedSigner(action, type as UserSignedKind, signature);
    } catch (e) {
      if (e instanceof ValidationError)
        return json(err(m.unknownUserSignedSigner(invalidSignatureAddress(signature))));
      throw e;
    }
  } else {
    return { kind: "unprocessable" };
  }

  if (kind === "l1" && expiresAfter !== null && expiresAfter < now) return json(err(m.actionExpired));

  // Who acts: the signer itself, or the master of an agent (L1 only), possibly for a vault/sub-account.
  let user: string;
  if (kind === "l1") {
    const agent = core.accounts.agent(signer, now);
    const master = agent ? agent.master : core.accounts.exists(signer) ? signer : undefined;
    if (master === undefined) return json(err(m.unknownL1Signer(signer)));
    user = master;
    if (vaultAddress !== null) {
      const vault = vaultAddress.toLowerCase();
      const sub = core.accounts.subAccount(vault);
      if (vault !== master && sub?.master !== master) return json(err(m.vaultNotAllowed(vault)));
      user = vault;
    }
  } else {
    if (!core.accounts.exists(signer) || core.accounts.agent(signer, now))
      return json(err(m.unknownUserSignedSigner(signer)));
    user = signer;
  }

  const check = core.nonces.check(signer, nonce, now);
  if (!check.ok) return json(err(check.error));
  core.nonces.use(signer, nonce);

  const hash = txHash({ action, nonce, signer, vaultAddress, expiresAfter });
  const result = execute(core, user, signer, action, hash);
  core.recordTx({ hash, action, block: core.block(now), error: result.error, time: now, user });
  core.ledger.record(
    now,
    "action",
    { type, nonce, signer, status: result.error === null ? "ok" : "error", error: result.error },
    { user, hash },
  );
  return json(result.body);
}

interface Executed {
  body: unknown;
  error: string | null;
}

function execute(
  core: VenueCore,
  user: string,
  signer: string,
  action: Record<string, unknown>,
  hash: string,
): Executed {
  const m = core.messages;
  const userSigned = (r: { ok: true } | { ok: false; error: string }): Executed =>
    r.ok ? { body: DEFAULT_OK, error: null } : { body: err(r.error), error: r.error };
  switch (action.type) {
    case "noop":
      return { body: DEFAULT_OK, error: null };
    case "twapOrder": {
      const w = action.twap as { a: number; b: boolean; s: string; r: boolean; m: number; t: boolean };
      const r = core.twaps.place(
        user,
        {
          asset: w.a,
          isBuy: w.b,
          size: w.s,
          reduceOnly: w.r,
          minutes: w.m,
          randomize: w.t,
          hasDetails: action.details != null,
        },
        hash,
      );
      const status = r.ok ? { running: { twapId: r.twap.id } } : { error: r.error };
      return {
        body: { status: "ok", response: { type: "twapOrder", data: { status } } },
        error: r.ok ? null : r.error,
      };
    }
    case "twapCancel": {
      const ok = core.twaps.cancel(user, action.a as number, action.t as number, hash);
      const status = ok ? "success" : { error: m.twapNotFound };
      return {
        body: { status: "ok", response: { type: "twapCancel", data: { status } } },
        error: ok ? null : m.twapNotFound,
      };
    }
    case "cDeposit":
      return userSigned(core.staking.deposit(user, toBig(action.wei), hash));
    case "cWithdraw":
      return userSigned(core.staking.withdraw(user, toBig(action.wei), hash));
    case "tokenDelegate":
      return userSigned(
        core.staking.delegate(
          user,
          String(action.validator).toLowerCase(),
          toBig(action.wei),
          action.isUndelegate === true,
          hash,
        ),
      );
    case "linkStakingUser":
      return userSigned(
        linkStakingUser(core, user, String(action.user).toLowerCase(), action.isFinalize === true, hash),
      );
    case "approveAgent":
      return userSigned(
        approveAgent(
          core,
          signer,
          String(action.agentAddress).toLowerCase(),
          (action.agentName as string | null) ?? "",
          hash,
        ),
      );
    default:
      return {
        body: err(m.unsupportedAction(String(action.type))),
        error: m.unsupportedAction(String(action.type)),
      };
  }
}

function toBig(v: unknown): bigint {
  return typeof v === "bigint" ? v : BigInt(v as number);
}

type Result = { ok: true } | { ok: false; error: string };

function linkStakingUser(
  core: VenueCore,
  signer: string,
  other: string,
  isFinalize: boolean,
  hash: string,
): Result {
  const m = core.messages;
  const a = core.accounts;
  const now = core.now();
  if (other === signer) return { ok: false, error: m.stakingLinkError };
  if (!isFinalize) {
    // The trading user proposes a link to a staking user.
    const existing = a.link(signer);
    if (
      existing?.status === "linked" ||
      a.linkByStaking(signer) ||
      a.linkByStaking(other) ||
      a.link(other)?.status === "linked"
    )
      return { ok: false, error: m.stakingLinkError };
    a.requestLink(signer, other);
    core.ledger.record(
      now,
      "stakingLinkRequested",
      { tradingUser: signer, stakingUser: other },
      { user: signer, hash },
    );
    return { ok: true };
  }
  // The staking user accepts the trading user's request; the link is permanent.
  const link = a.link(other);
  if (link?.status !== "requested" || link.staking !== signer || a.linkByStaking(signer))
    return { ok: false, error: m.stakingLinkError };
  a.finalizeLink(link);
  core.ledger.record(
    now,
    "stakingLinkFinalized",
    { tradingUser: other, stakingUser: signer },
    { user: signer, hash },
  );
  return { ok: true };
}

const VALID_UNTIL = /^(.*) valid_until (\d+)$/;

function approveAgent(
  core: VenueCore,
  master: string,
  agentAddress: string,
  rawName: string,
  hash: string,
): Result {
  const m = core.messages;
  const s = core.settings;
  const now = core.now();
  if (core.accounts.exists(agentAddress) || agentAddress === master)
    return { ok: false, error: m.agentIsUser };
  let name = rawName;
  let validUntil = now + s.agentValidity;
  const suffix = VALID_UNTIL.exec(rawName);
  if (suffix) {
    name = suffix[1]!;
    validUntil = Number(suffix[2]);
    if (validUntil <= now || validUntil > now + s.agentMaxValidity)
      return { ok: false, error: m.invalidAgentName };
  }
  if (name.length > 16) return { ok: false, error: m.invalidAgentName };
  const current = core.accounts.agentsOf(master, now);
  if (name !== "" && !current.some((x) => x.name === name)) {
    const named = current.filter((x) => x.name !== "").length;
    const limit = core.accounts.subAccount(master) ? s.maxNamedAgentsPerSubAccount : s.maxNamedAgents;
    if (named >= limit) return { ok: false, error: m.tooManyAgents };
  }
  const replaced = core.accounts.addAgent({
    address: agentAddress,
    master,
    name,
    validUntil,
    approvedAt: now,
  });
  // A pruned agent's nonce set goes with it.
  for (const r of replaced) if (r !== agentAddress) core.nonces.drop(r);
  core.ledger.record(now, "agentApproved", { agent: agentAddress, name, validUntil }, { user: master, hash });
  return { ok: true };
}

/** A stand-in address for a signature from which no key recovers (the venue names some address). */
function invalidSignatureAddress(signature: unknown): string {
  return `0x${bytesToHex(keccak_256(utf8ToBytes(stringifyJson(signature)))).slice(-40)}`;
}
