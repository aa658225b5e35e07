// An independent implementation of the venue's signing rules (reference §5), written from the reference
// for these tests only: msgpack from @msgpack/msgpack, EIP-712 digests from ethers' TypedDataEncoder,
// signatures from ethers' SigningKey. It shares no code with src/venue/signing, so a request it signs
// and the simulator accepts proves the simulator recovers signers by the published recipe.
import { encode } from "@msgpack/msgpack";
import { concat, getBytes, keccak256, SigningKey, TypedDataEncoder, toBeHex, ZeroAddress } from "ethers";

export interface IndependentBody {
  action: Record<string, unknown>;
  nonce: number;
  signature: { r: string; s: string; v: number };
  vaultAddress?: string | null;
  expiresAfter?: number | null;
}

function sign(key: string, digest: string): { r: string; s: string; v: number } {
  const sig = new SigningKey(key).sign(digest);
  return { r: sig.r, s: sig.s, v: sig.v };
}

/** An L1 (phantom agent) body: keccak(msgpack ‖ nonce ‖ vault flag [‖ 00 ‖ expiry]) signed as Agent. */
export function independentL1(
  key: string,
  action: Record<string, unknown>,
  nonce: number,
  network: "mainnet" | "testnet",
  opts: { vaultAddress?: string; expiresAfter?: number } = {},
): IndependentBody {
  const parts: Uint8Array[] = [
    encode(action, { sortKeys: false, ignoreUndefined: false }),
    getBytes(toBeHex(nonce, 8)),
  ];
  parts.push(opts.vaultAddress ? getBytes(concat(["0x01", opts.vaultAddress])) : new Uint8Array([0]));
  if (opts.expiresAfter !== undefined)
    parts.push(new Uint8Array([0]), getBytes(toBeHex(opts.expiresAfter, 8)));
  const connectionId = keccak256(concat(parts));
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
  const body: IndependentBody = { action, nonce, signature: sign(key, digest) };
  if (opts.vaultAddress !== undefined) body.vaultAddress = opts.vaultAddress;
  if (opts.expiresAfter !== undefined) body.expiresAfter = opts.expiresAfter;
  return body;
}

/** EIP-712 field lists of the user-signed actions, copied from the reference (§5.3). */
const USER_TYPES: Record<string, { primaryType: string; fields: { name: string; type: string }[] }> = {
  tokenDelegate: {
    primaryType: "HyperliquidTransaction:TokenDelegate",
    fields: [
      { name: "hyperliquidChain", type: "string" },
      { name: "validator", type: "address" },
      { name: "wei", type: "uint64" },
      { name: "isUndelegate", type: "bool" },
      { name: "nonce", type: "uint64" },
    ],
  },
  cDeposit: {
    primaryType: "HyperliquidTransaction:CDeposit",
    fields: [
      { name: "hyperliquidChain", type: "string" },
      { name: "wei", type: "uint64" },
      { name: "nonce", type: "uint64" },
    ],
  },
};

/** A user-signed body: EIP-712 of the action's typed fields in the HyperliquidSignTransaction domain. */
export function independentUserSigned(key: string, action: Record<string, unknown>): IndependentBody {
  const spec = USER_TYPES[action.type as string];
  if (!spec) throw new Error(`no type list for ${String(action.type)}`);
  const message: Record<string, unknown> = {};
  for (const f of spec.fields) message[f.name] = action[f.name];
  const digest = TypedDataEncoder.hash(
    {
      name: "HyperliquidSignTransaction",
      version: "1",
      chainId: Number.parseInt(String(action.signatureChainId), 16),
      verifyingContract: ZeroAddress,
    },
    { [spec.primaryType]: spec.fields },
    message,
  );
  return { action, nonce: action.nonce as number, signature: sign(key, digest) };
}
