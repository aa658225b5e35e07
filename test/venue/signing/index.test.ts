// signAction / recoverActionSigner: recipe chosen by the action type, and the combinations the venue
// does not accept refused before signing.
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../src/lib/errors.js";
import {
  actionDigest,
  l1ActionDigest,
  privateKeySigner,
  recoverActionSigner,
  signAction,
  userSignedActionDigest,
} from "../../../src/venue/signing/index.js";

const signer = privateKeySigner("0x0123456789012345678901234567890123456789012345678901234567890123");
const twap = { type: "twapCancel", a: 10107, t: 5 };
const deposit = {
  type: "cDeposit",
  signatureChainId: "0x66eee",
  hyperliquidChain: "Testnet",
  wei: 1,
  nonce: 1735380381353,
};

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).field;
  }
  throw new Error("expected a ValidationError");
}

describe("actionDigest picks the recipe from the action type", () => {
  it("L1 for twapCancel (with vault and expiry)", () => {
    const p = {
      action: twap,
      nonce: 1,
      network: "mainnet" as const,
      vaultAddress: "0x1719884eb866cb12b2287399b15f7db5e7d775ea",
      expiresAfter: 10,
    };
    expect(actionDigest(p)).toEqual(l1ActionDigest(p));
  });

  it("user-signed for cDeposit", () => {
    expect(actionDigest({ action: deposit, nonce: deposit.nonce, network: "testnet" })).toEqual(
      userSignedActionDigest(deposit, "cDeposit"),
    );
  });

  it("round trip through signAction and recoverActionSigner", async () => {
    for (const p of [
      { action: twap, nonce: 1700000000000, network: "testnet" as const, expiresAfter: 1700000060000 },
      { action: deposit, nonce: deposit.nonce, network: "testnet" as const },
    ]) {
      const signature = await signAction(signer, p);
      expect(recoverActionSigner({ ...p, signature })).toBe(signer.address);
    }
  });
});

describe("refusals", () => {
  it("a vault or an expiry on a user-signed action", () => {
    expect(
      fieldOf(() =>
        actionDigest({
          action: deposit,
          nonce: deposit.nonce,
          network: "testnet",
          vaultAddress: "0x1719884eb866cb12b2287399b15f7db5e7d775ea",
        }),
      ),
    ).toBe("vaultAddress");
    expect(
      fieldOf(() =>
        actionDigest({ action: deposit, nonce: deposit.nonce, network: "testnet", expiresAfter: 5 }),
      ),
    ).toBe("expiresAfter");
  });

  it("an inner nonce (or time) that differs from the request nonce", () => {
    expect(
      fieldOf(() => actionDigest({ action: deposit, nonce: deposit.nonce + 1, network: "testnet" })),
    ).toBe("nonce");
    const send = {
      type: "usdSend",
      signatureChainId: "0x66eee",
      hyperliquidChain: "Testnet",
      destination: "0x5e9ee1089755c3435139848e47e6635505d5a13a",
      amount: "1",
      time: 1687816341423,
    };
    expect(actionDigest({ action: send, nonce: 1687816341423, network: "testnet" })).toHaveLength(32);
    expect(fieldOf(() => actionDigest({ action: send, nonce: 1, network: "testnet" }))).toBe("nonce");
  });

  it("an action type without a known recipe", async () => {
    expect(fieldOf(() => actionDigest({ action: { type: "spotSend" }, nonce: 1, network: "mainnet" }))).toBe(
      "action.type",
    );
    expect(fieldOf(() => actionDigest({ action: {}, nonce: 1, network: "mainnet" }))).toBe("action.type");
    await expect(
      signAction(signer, { action: { type: "nope" }, nonce: 1, network: "mainnet" }),
    ).rejects.toThrow(ValidationError);
  });
});
