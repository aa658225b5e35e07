// L1 recipe: constants, an independent cross-check of the Agent digest with ethers' TypedDataEncoder,
// tampering (every signed input changes the recovered address) and input validation.
import { secp256k1 } from "@noble/curves/secp256k1";
import { recoverAddress, SigningKey, TypedDataEncoder } from "ethers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../src/lib/errors.js";
import { NETWORKS, type NetworkName } from "../../../src/venue/networks.js";
import { toHex } from "../../../src/venue/signing/hex.js";
import {
  AGENT_FIELDS,
  L1_CONSTANTS,
  L1_DOMAIN,
  l1ActionDigest,
  l1ActionHash,
  l1Digest,
  recoverL1Signer,
  signL1Action,
} from "../../../src/venue/signing/l1.js";
import { privateKeySigner } from "../../../src/venue/signing/signer.js";

const KEY = "0x822e9959e022b78423eb653a62ea0020cd283e71a2a8133a6ff2aeffaf373cff";
const ADDRESS = "0xe5ca49fb3bd9a581f0d1ef9cb5d7177da08bf901";

describe("L1 constants (phantom agent domain and sources)", () => {
  it("domain separator and Agent type hash", () => {
    expect(toHex(L1_CONSTANTS.domainSeparator)).toBe(
      "0xd79297fcdf2ffcd4ae223d01edaa2ba214ff8f401d7c9300d995d17c82aa4040",
    );
    expect(toHex(L1_CONSTANTS.agentTypeHash)).toBe(
      "0x26f05c2f7239b6983075e58321292d77b3aa173d19b27257ac96ab362570f508",
    );
    expect(TypedDataEncoder.hashDomain(L1_DOMAIN)).toBe(toHex(L1_CONSTANTS.domainSeparator));
  });
});

describe("Agent digest agrees with ethers.TypedDataEncoder", () => {
  it("for random connectionIds on both networks", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (cid) => {
        for (const network of ["mainnet", "testnet"] as NetworkName[]) {
          const independent = TypedDataEncoder.hash(
            L1_DOMAIN,
            { Agent: AGENT_FIELDS.map((f) => ({ ...f })) },
            { source: NETWORKS[network].l1Source, connectionId: toHex(cid) },
          );
          expect(toHex(l1Digest(cid, network))).toBe(independent);
        }
      }),
      { numRuns: 50 },
    );
  });
});

describe("signatures agree with ethers and recover", () => {
  it("our signature equals ethers SigningKey.sign for random keys and actions, and recovers via ethers", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 32, maxLength: 32 }).filter((k) => secp256k1.utils.isValidSecretKey(k)),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        async (keyBytes, asset, nonce) => {
          const key = toHex(keyBytes);
          const signer = privateKeySigner(key);
          const p = {
            action: { type: "twapCancel", a: asset, t: nonce % 1_000_000_000 },
            nonce,
            network: "testnet" as const,
          };
          const sig = await signL1Action(signer, p);
          const digest = toHex(l1ActionDigest(p));
          const theirs = new SigningKey(key).sign(digest);
          expect(sig.r).toBe(theirs.r);
          expect(sig.s).toBe(theirs.s);
          expect(sig.v).toBe(theirs.v);
          expect(recoverAddress(digest, sig).toLowerCase()).toBe(signer.address);
          expect(recoverL1Signer({ ...p, signature: sig })).toBe(signer.address);
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe("tampering with any signed input changes the recovered address", () => {
  const base = {
    action: { type: "twapOrder", twap: { a: 10107, b: true, s: "12.5", r: false, m: 30, t: false } },
    nonce: 1700000000000,
    vaultAddress: "0x1719884eb866cb12b2287399b15f7db5e7d775ea" as string | null,
    expiresAfter: 1700000060000 as number | null,
    network: "mainnet" as NetworkName,
  };

  it.each([
    ["action value (size)", { action: { type: "twapOrder", twap: { ...base.action.twap, s: "12.6" } } }],
    [
      "action value (trailing zero)",
      { action: { type: "twapOrder", twap: { ...base.action.twap, s: "12.50" } } },
    ],
    ["action value (side)", { action: { type: "twapOrder", twap: { ...base.action.twap, b: false } } }],
    [
      "action key order",
      { action: { type: "twapOrder", twap: { b: true, a: 10107, s: "12.5", r: false, m: 30, t: false } } },
    ],
    ["action type", { action: { type: "twapCancel", twap: base.action.twap } }],
    ["nonce", { nonce: base.nonce + 1 }],
    ["vault removed", { vaultAddress: null }],
    ["vault changed", { vaultAddress: "0x1719884eb866cb12b2287399b15f7db5e7d775eb" }],
    ["expiry removed", { expiresAfter: null }],
    ["expiry changed", { expiresAfter: base.expiresAfter! + 1 }],
    ["network", { network: "testnet" as NetworkName }],
  ])("%s", async (_label, change) => {
    const signer = privateKeySigner(KEY);
    const signature = await signL1Action(signer, base);
    expect(recoverL1Signer({ ...base, signature })).toBe(ADDRESS);
    const tampered = recoverL1Signer({ ...base, ...change, signature });
    expect(tampered).toMatch(/^0x[0-9a-f]{40}$/);
    expect(tampered).not.toBe(ADDRESS);
  });

  it("a different v recovers a different address", async () => {
    const signature = await signL1Action(privateKeySigner(KEY), base);
    const flipped = { ...signature, v: signature.v === 27 ? 28 : 27 };
    expect(recoverL1Signer({ ...base, signature: flipped })).not.toBe(ADDRESS);
  });
});

describe("L1 input validation", () => {
  const action = { type: "noop" };
  it.each([
    ["negative nonce", () => l1ActionHash(action, -1), "nonce"],
    ["fractional nonce", () => l1ActionHash(action, 1.5), "nonce"],
    ["unsafe nonce", () => l1ActionHash(action, 2 ** 53), "nonce"],
    ["short vault", () => l1ActionHash(action, 1, "0x1234"), "vaultAddress"],
    [
      "vault without 0x",
      () => l1ActionHash(action, 1, "1719884eb866cb12b2287399b15f7db5e7d775ea"),
      "vaultAddress",
    ],
    ["fractional expiry", () => l1ActionHash(action, 1, null, 1.5), "expiresAfter"],
    ["negative expiry", () => l1ActionHash(action, 1, null, -5), "expiresAfter"],
    ["short connectionId", () => l1Digest(new Uint8Array(31), "mainnet"), "connectionId"],
    ["unknown network", () => l1Digest(new Uint8Array(32), "devnet" as NetworkName), "network"],
  ])("%s", (_label, fn, field) => {
    let caught: unknown;
    try {
      fn();
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).field).toBe(field);
  });

  it.each([
    ["missing", undefined, "signature"],
    ["bad v", { r: "0x01", s: "0x01", v: 29 }, "signature.v"],
    ["v as a string", { r: "0x01", s: "0x01", v: "27" }, "signature.v"],
    ["r not hex", { r: "0xzz", s: "0x01", v: 27 }, "signature.r"],
    ["r too long", { r: `0x${"1".repeat(65)}`, s: "0x01", v: 27 }, "signature.r"],
    ["s zero", { r: "0x01", s: "0x0", v: 27 }, "signature.s"],
    ["s beyond the curve order", { r: "0x01", s: `0x${"f".repeat(64)}`, v: 27 }, "signature.s"],
  ])("malformed signature: %s", (_label, signature, field) => {
    let caught: unknown;
    try {
      recoverL1Signer({ action, nonce: 1, network: "mainnet", signature });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).field).toBe(field);
  });
});
