// The L1 ("phantom agent") signing recipe (the venue's signing docs; the Python SDK's sign_l1_action), used by twapOrder, twapCancel and the
// other trading actions. The action is msgpack-hashed with the nonce, the vault flag and the optional
// expiry into a connectionId, which is then signed as EIP-712 `Agent{source, connectionId}` in the
// fixed `Exchange` domain. The network only changes `source`.
import { keccak_256 } from "@noble/hashes/sha3";
import { utf8ToBytes } from "@noble/hashes/utils";
import { ValidationError } from "../../lib/errors.js";
import { NETWORKS, type NetworkName } from "../networks.js";
import { domainSeparator, type Eip712Field, typeHash } from "./eip712.js";
import { type Address, fromHex, normalizeAddress, requireUint, writeUint64BE } from "./hex.js";
import { packActionShared } from "./msgpack.js";
import { recoverDigestSigner, type Signature } from "./recover.js";
import type { Signer } from "./signer.js";

export const L1_DOMAIN = {
  name: "Exchange",
  version: "1",
  chainId: 1337,
  verifyingContract: "0x0000000000000000000000000000000000000000",
} as const;
export const AGENT_FIELDS: readonly Eip712Field[] = [
  { name: "source", type: "string" },
  { name: "connectionId", type: "bytes32" },
];

const L1_DOMAIN_SEPARATOR = domainSeparator(L1_DOMAIN);
const AGENT_TYPE_HASH = typeHash("Agent", AGENT_FIELDS);
const SOURCE_HASH: Readonly<Record<NetworkName, Uint8Array>> = {
  mainnet: keccak_256(utf8ToBytes(NETWORKS.mainnet.l1Source)),
  testnet: keccak_256(utf8ToBytes(NETWORKS.testnet.l1Source)),
};

/**
 * connectionId = keccak256(msgpack(action) ‖ nonce u64 BE ‖ vault flag [‖ vault] [‖ 0x00 ‖ expiresAfter u64 BE]).
 * `null` and absent vault/expiry are the same thing; a vault's case does not matter (its bytes are hashed).
 * Checked against nktkas/hyperliquid src/signing/_l1.ts (createL1ActionHash) and
 * hyperliquid-python-sdk hyperliquid/utils/signing.py (action_hash): flag 0x01 + the 20 vault bytes
 * after the nonce, then 0x00 + expiresAfter.
 */
export function l1ActionHash(
  action: Record<string, unknown>,
  nonce: number,
  vaultAddress?: string | null,
  expiresAfter?: number | null,
): Uint8Array {
  requireUint(nonce, "nonce");
  const vault = vaultAddress == null ? undefined : normalizeAddress(vaultAddress, "vaultAddress");
  if (expiresAfter != null) requireUint(expiresAfter, "expiresAfter");
  const tail = new Uint8Array(8 + 1 + (vault ? 20 : 0) + (expiresAfter != null ? 9 : 0));
  writeUint64BE(tail, 0, nonce);
  let at = 8;
  if (vault) {
    tail[at++] = 1;
    tail.set(fromHex(vault), at);
    at += 20;
  } else {
    tail[at++] = 0;
  }
  if (expiresAfter != null) {
    tail[at++] = 0; // the expiry marker is 0x00, not 0x01
    writeUint64BE(tail, at, expiresAfter);
  }
  // msgpack first, hashed straight out of the encoder's shared buffer before anything else can encode.
  return keccak_256.create().update(packActionShared(action)).update(tail).digest();
}

/** EIP-712 digest of the phantom agent `{source: "a"|"b", connectionId}` in the `Exchange` domain. */
export function l1Digest(connectionId: Uint8Array, network: NetworkName): Uint8Array {
  const sourceHash = SOURCE_HASH[network];
  if (!sourceHash) {
    throw new ValidationError([{ path: "network", message: `unknown network ${JSON.stringify(network)}` }]);
  }
  if (!(connectionId instanceof Uint8Array) || connectionId.length !== 32) {
    throw new ValidationError([{ path: "connectionId", message: "must be 32 bytes" }]);
  }
  const struct = new Uint8Array(96);
  struct.set(AGENT_TYPE_HASH, 0);
  struct.set(sourceHash, 32);
  struct.set(connectionId, 64);
  const buf = new Uint8Array(66);
  buf[0] = 0x19;
  buf[1] = 0x01;
  buf.set(L1_DOMAIN_SEPARATOR, 2);
  buf.set(keccak_256(struct), 34);
  return keccak_256(buf);
}

export interface L1SigningParams {
  action: Record<string, unknown>;
  nonce: number;
  vaultAddress?: string | null;
  expiresAfter?: number | null;
  network: NetworkName;
}

/** The digest an L1 action's signature covers. */
export function l1ActionDigest(p: L1SigningParams): Uint8Array {
  return l1Digest(l1ActionHash(p.action, p.nonce, p.vaultAddress, p.expiresAfter), p.network);
}

export async function signL1Action(signer: Signer, p: L1SigningParams): Promise<Signature> {
  return signer.signDigest(l1ActionDigest(p));
}

/** The address that signed an L1 action (an agent or the account itself). */
export function recoverL1Signer(p: L1SigningParams & { signature: unknown }): Address {
  return recoverDigestSigner(l1ActionDigest(p), p.signature);
}

/** Exposed for tests and diagnostics: the precomputed constants of the recipe. */
export const L1_CONSTANTS = { domainSeparator: L1_DOMAIN_SEPARATOR, agentTypeHash: AGENT_TYPE_HASH } as const;
