// The published signing vectors (signing-vectors.json in test/fixtures) and a worked twapOrder example
// (action, nonce, key and expected connectionId and signature written out below), reproduced bit for bit.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { NetworkName } from "../../../src/venue/networks.js";
import { toHex } from "../../../src/venue/signing/hex.js";
import { l1ActionHash, l1Digest, recoverL1Signer, signL1Action } from "../../../src/venue/signing/l1.js";
import { packAction } from "../../../src/venue/signing/msgpack.js";
import { privateKeySigner } from "../../../src/venue/signing/signer.js";
import {
  isUserSignedKind,
  recoverUserSignedSigner,
  signUserSignedAction,
  userSignedDigest,
} from "../../../src/venue/signing/userSigned.js";

interface Vector {
  name: string;
  privateKey: string;
  signer: string;
  kind: "l1" | "user";
  network: NetworkName;
  action: Record<string, unknown>;
  nonce: number;
  vaultAddress: string | null;
  expiresAfter: number | null;
  primaryType?: string;
  types?: { name: string; type: string }[];
  signatureChainId?: string;
  expected: { connectionId?: string; r?: string; s?: string; v?: 27 | 28 };
}

const file = JSON.parse(
  readFileSync(new URL("../../fixtures/signing-vectors.json", import.meta.url), "utf8"),
) as { vectors: Vector[]; constants: { l1Source: Record<NetworkName, string> } };
const vectors = file.vectors;

describe("published signing vectors", () => {
  it("has all 28 vectors, each with something to check", () => {
    expect(vectors).toHaveLength(28);
    expect(new Set(vectors.map((v) => v.name)).size).toBe(28);
    for (const v of vectors) expect(v.expected.connectionId ?? v.expected.r).toBeDefined();
  });

  it.each(vectors.map((v) => [v.name, v] as const))("%s", async (_name, v) => {
    const signer = privateKeySigner(v.privateKey);
    expect(signer.address).toBe(v.signer);
    const params = {
      action: v.action,
      nonce: v.nonce,
      vaultAddress: v.vaultAddress,
      expiresAfter: v.expiresAfter,
      network: v.network,
    };
    let checks = 0;

    if (v.kind === "l1") {
      if (v.expected.connectionId !== undefined) {
        expect(toHex(l1ActionHash(v.action, v.nonce, v.vaultAddress, v.expiresAfter))).toBe(
          v.expected.connectionId,
        );
        checks++;
      }
      if (v.expected.r !== undefined) {
        const sig = await signL1Action(signer, params);
        expect(BigInt(sig.r)).toBe(BigInt(v.expected.r));
        expect(BigInt(sig.s)).toBe(BigInt(v.expected.s!));
        expect(sig.v).toBe(v.expected.v);
        expect(sig.r).toMatch(/^0x[0-9a-f]{64}$/);
        expect(sig.s).toMatch(/^0x[0-9a-f]{64}$/);
        expect(recoverL1Signer({ ...params, signature: v.expected })).toBe(v.signer);
        checks++;
      }
    } else {
      expect(v.action.signatureChainId).toBe(v.signatureChainId);
      expect(v.action.hyperliquidChain).toBe(v.network === "mainnet" ? "Mainnet" : "Testnet");
      // Generic path: the vector's own type list.
      const digest = userSignedDigest(v.action, v.primaryType!, v.types!);
      const generic = await signer.signDigest(digest);
      // Named path: the built-in type table selected by the action's `type`.
      const kind = v.action.type;
      if (!isUserSignedKind(kind)) throw new Error(`no built-in type for ${String(kind)}`);
      const named = await signUserSignedAction(signer, v.action, kind);
      for (const sig of [generic, named]) {
        expect(BigInt(sig.r)).toBe(BigInt(v.expected.r!));
        expect(BigInt(sig.s)).toBe(BigInt(v.expected.s!));
        expect(sig.v).toBe(v.expected.v);
      }
      expect(recoverUserSignedSigner(v.action, kind, v.expected)).toBe(v.signer);
      checks++;
    }
    expect(checks).toBeGreaterThan(0);
  });

  it("accepts r/s without leading zeros, as the Python SDK prints them", () => {
    const v = vectors.find((x) => x.name === "py/l1_dummy_vault/mainnet")!;
    expect(v.expected.r!.startsWith("0x00")).toBe(true);
    const short = { ...v.expected, r: `0x${BigInt(v.expected.r!).toString(16)}` };
    expect(short.r.length).toBeLessThan(66);
    expect(recoverL1Signer({ ...v, signature: short })).toBe(v.signer);
  });
});

describe("worked twapOrder example", () => {
  const action = { type: "twapOrder", twap: { a: 0, b: true, s: "1.5", r: false, m: 30, t: false } };
  const nonce = 1700000000000;

  it("msgpack bytes", () => {
    expect(toHex(packAction(action))).toBe(
      "0x82a474797065a9747761704f72646572a47477617086a16100a162c3a173a3312e35a172c2a16d1ea174c2",
    );
  });

  it("connectionId and both digests", () => {
    const cid = l1ActionHash(action, nonce);
    expect(toHex(cid)).toBe("0x18e2c1c850c380b4ebb983a22dec9feb05f019e49e60d0e689d08cb625ad85d4");
    expect(toHex(l1Digest(cid, "mainnet"))).toBe(
      "0xb78c68fb675e73c76109e8399edc74e629c5cc2d3581544cf78c5ecde6619650",
    );
    expect(toHex(l1Digest(cid, "testnet"))).toBe(
      "0x4cb51322223ea52f04024fd5f4b34a8a85f81a4c84d88681f742c9245b91f57e",
    );
    // null and absent vault/expiry are the same thing.
    expect(toHex(l1ActionHash(action, nonce, null, null))).toBe(toHex(cid));
  });

  it("vault and expiry bytes after the nonce", async () => {
    const { keccak_256 } = await import("@noble/hashes/sha3");
    const { hexToBytes } = await import("@noble/hashes/utils");
    const vault = "0x1719884eb866cb12b2287399b15f7db5e7d775ea";
    const expected = keccak_256(
      hexToBytes(
        "82a474797065a9747761704f72646572a47477617086a16100a162c3a173a3312e35a172c2a16d1ea174c2" +
          "0000018bcfe56800" +
          "01" +
          "1719884eb866cb12b2287399b15f7db5e7d775ea" +
          "00" +
          "0000018bcfe65260",
      ),
    );
    expect(toHex(l1ActionHash(action, nonce, vault, 1700000060000))).toBe(toHex(expected));
    // The vault's case does not matter: its bytes are hashed.
    expect(toHex(l1ActionHash(action, nonce, vault.toUpperCase().replace("0X", "0x"), 1700000060000))).toBe(
      toHex(expected),
    );
    // Without expiry nothing is appended after the vault.
    const noExpiry = keccak_256(
      hexToBytes(
        "82a474797065a9747761704f72646572a47477617086a16100a162c3a173a3312e35a172c2a16d1ea174c2" +
          "0000018bcfe56800011719884eb866cb12b2287399b15f7db5e7d775ea",
      ),
    );
    expect(toHex(l1ActionHash(action, nonce, vault))).toBe(toHex(noExpiry));
  });

  it('"1.50" instead of "1.5" changes the connectionId', () => {
    const trailing = { type: "twapOrder", twap: { ...action.twap, s: "1.50" } };
    expect(toHex(l1ActionHash(trailing, nonce))).not.toBe(toHex(l1ActionHash(action, nonce)));
  });
});
