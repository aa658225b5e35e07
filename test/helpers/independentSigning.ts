// An independent implementation of the venue's signing rules (reference §5), for checking bodies that
// hlbot prints or sends: a tiny msgpack encoder written here for the value shapes of twapOrder and
// twapCancel, keccak and EIP-712 from ethers (TypedDataEncoder), and the EIP-712 type lists copied from
// the reference rather than from hlbot's own tables. It shares no code with src/venue/signing.
import {
  type BytesLike,
  concat,
  keccak256,
  recoverAddress,
  Signature,
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

/** Address that signed an L1 body, computed from the reference recipe with ethers. */
export function independentL1Signer(body: WireBody, network: "mainnet" | "testnet"): string {
  const connectionId = l1ConnectionId(body);
  const digest = TypedDataEncoder.hash(
    { name: "Exchange", version: "1", chainId: 1337, verifyingContract: ZeroAddress },
    {
      Agent: [
        { name: "source", type: "string" },
        { name: "connectionId", type: "bytes32" },
      ],
    },
    { source: network === "mainnet" ? "a" : "b", connectionId },
  );
  return recoverAddress(digest, Signature.from(body.signature)).toLowerCase();
}

/** Field lists of the user-signed primary types, as written in the reference (§5.3). */
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

/** Address that signed a user-signed body, computed with ethers' EIP-712 implementation. */
export function independentUserSigner(body: WireBody): string {
  const spec = USER_TYPES[body.action.type as string];
  if (!spec) throw new Error(`no independent type for ${String(body.action.type)}`);
  const message = Object.fromEntries(spec.fields.map(([name]) => [name, body.action[name]]));
  const digest = TypedDataEncoder.hash(
    {
      name: "HyperliquidSignTransaction",
      version: "1",
      chainId: BigInt(body.action.signatureChainId as string),
      verifyingContract: ZeroAddress,
    },
    { [spec.primaryType]: spec.fields.map(([name, type]) => ({ name, type })) },
    message,
  );
  return recoverAddress(digest, Signature.from(body.signature)).toLowerCase();
}
