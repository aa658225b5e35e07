// The tests' one independent implementation of the venue's signing rules (L1 "phantom agent" and
// user-signed EIP-712, as the venue's docs and public SDKs describe them), for checking bodies that hlbot
// prints or sends and for signing requests the simulator must accept: a tiny msgpack encoder written here
// for the value shapes of the actions tested, keccak, EIP-712 and secp256k1 from ethers, and EIP-712
// type lists written out here rather than taken from hlbot's own tables. It shares no code with
// src/venue/signing.
import {
  type BytesLike,
  concat,
  keccak256,
  recoverAddress,
  Signature,
  SigningKey,
  TypedDataEncoder,
  toBeHex,
  ZeroAddress,
} from "ethers";

function packUint(n: number): number[] {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`not a uint: ${n}`);
  if (n < 0x80) return [n];
  if (n < 0x100) return [0xcc, n];
  if (n < 0x10000) return [0xcd, n >> 8, n & 0xff];
  if (n < 0x100000000) return [0xce, ...bytesBE(BigInt(n), 4)];
  return [0xcf, ...bytesBE(BigInt(n), 8)];
}

function bytesBE(n: bigint, width: number): number[] {
  const out: number[] = [];
  for (let i = width - 1; i >= 0; i--) out.push(Number((n >> BigInt(8 * i)) & 0xffn));
  return out;
}

function packStr(s: string): number[] {
  const bytes = [...new TextEncoder().encode(s)];
  if (bytes.length < 32) return [0xa0 | bytes.length, ...bytes];
  if (bytes.length < 256) return [0xd9, bytes.length, ...bytes];
  throw new Error("string too long for this test encoder");
}

/** msgpack of JSON-like values with string keys in insertion order (Python msgpack.packb defaults). */
export function msgpack(value: unknown): Uint8Array {
  const out: number[] = [];
  const walk = (v: unknown): void => {
    if (v === null) out.push(0xc0);
    else if (v === true) out.push(0xc3);
    else if (v === false) out.push(0xc2);
    else if (typeof v === "number") out.push(...packUint(v));
    else if (typeof v === "string") out.push(...packStr(v));
    else if (typeof v === "object") {
      const entries = Object.entries(v as object);
      if (entries.length >= 16) throw new Error("map too large for this test encoder");
      out.push(0x80 | entries.length);
      for (const [k, x] of entries) {
        out.push(...packStr(k));
        walk(x);
      }
    } else throw new Error(`cannot pack ${typeof v}`);
  };
  walk(value);
  return Uint8Array.from(out);
}

export interface WireBody {
  action: Record<string, unknown>;
  nonce: number;
  signature: { r: string; s: string; v: number };
  vaultAddress?: string;
  expiresAfter?: number;
}

/** keccak256(msgpack(action) ‖ nonce u64 BE ‖ vault flag [‖ vault] [‖ 00 ‖ expiresAfter u64 BE]). */
export function l1ConnectionId(body: Omit<WireBody, "signature">): string {
  const parts: BytesLike[] = [msgpack(body.action), toBeHex(body.nonce, 8)];
  parts.push(body.vaultAddress ? concat(["0x01", body.vaultAddress]) : "0x00");
  if (body.expiresAfter !== undefined) parts.push("0x00", toBeHex(body.expiresAfter, 8));
  return keccak256(concat(parts));
}

function l1Digest(body: Omit<WireBody, "signature">, network: "mainnet" | "testnet"): string {
  const connectionId = l1ConnectionId(body);
  return TypedDataEncoder.hash(
    { name: "Exchange", version: "1", chainId: 1337, verifyingContract: ZeroAddress },
    {
      Agent: [
        { name: "source", type: "string" },
        { name: "connectionId", type: "bytes32" },
      ],
    },
    { source: network === "mainnet" ? "a" : "b", connectionId },
  );
}

/** Address that signed an L1 body. */
export function independentL1Signer(body: WireBody, network: "mainnet" | "testnet"): string {
  return recoverAddress(l1Digest(body, network), Signature.from(body.signature)).toLowerCase();
}

function sign(key: string, digest: string): WireBody["signature"] {
  const sig = new SigningKey(key).sign(digest);
  return { r: sig.r, s: sig.s, v: sig.v };
}

/** An L1 body signed with `key` (optionally for a vault and with an expiry). */
export function independentL1(
  key: string,
  action: Record<string, unknown>,
  nonce: number,
  network: "mainnet" | "testnet",
  opts: { vaultAddress?: string; expiresAfter?: number } = {},
): WireBody {
  const unsigned = { action, nonce, ...opts };
  return { ...unsigned, signature: sign(key, l1Digest(unsigned, network)) };
}

/** Field lists of the user-signed primary types (the venue's EIP-712 types for each action). */
const USER_TYPES: Record<string, { primaryType: string; fields: [string, string][] }> = {
  tokenDelegate: {
    primaryType: "HyperliquidTransaction:TokenDelegate",
    fields: [
      ["hyperliquidChain", "string"],
      ["validator", "address"],
      ["wei", "uint64"],
      ["isUndelegate", "bool"],
      ["nonce", "uint64"],
    ],
  },
  linkStakingUser: {
    primaryType: "HyperliquidTransaction:LinkStakingUser",
    fields: [
      ["hyperliquidChain", "string"],
      ["user", "address"],
      ["isFinalize", "bool"],
      ["nonce", "uint64"],
    ],
  },
  cDeposit: {
    primaryType: "HyperliquidTransaction:CDeposit",
    fields: [
      ["hyperliquidChain", "string"],
      ["wei", "uint64"],
      ["nonce", "uint64"],
    ],
  },
  cWithdraw: {
    primaryType: "HyperliquidTransaction:CWithdraw",
    fields: [
      ["hyperliquidChain", "string"],
      ["wei", "uint64"],
      ["nonce", "uint64"],
    ],
  },
};

function userDigest(action: Record<string, unknown>): string {
  const spec = USER_TYPES[action.type as string];
  if (!spec) throw new Error(`no independent type for ${String(action.type)}`);
  const message = Object.fromEntries(spec.fields.map(([name]) => [name, action[name]]));
  return TypedDataEncoder.hash(
    {
      name: "HyperliquidSignTransaction",
      version: "1",
      chainId: BigInt(action.signatureChainId as string),
      verifyingContract: ZeroAddress,
    },
    { [spec.primaryType]: spec.fields.map(([name, type]) => ({ name, type })) },
    message,
  );
}

/** Address that signed a user-signed body, computed with ethers' EIP-712 implementation. */
export function independentUserSigner(body: WireBody): string {
  return recoverAddress(userDigest(body.action), Signature.from(body.signature)).toLowerCase();
}

/** A user-signed body signed with `key` (the action carries its own nonce). */
export function independentUserSigned(key: string, action: Record<string, unknown>): WireBody {
  return { action, nonce: action.nonce as number, signature: sign(key, userDigest(action)) };
}
