// Wire builders of the user-signed actions (tokenDelegate, cDeposit, cWithdraw, linkStakingUser,
// approveAgent): key order, network header, wei conversion, address normalisation, and signatures that
// recover under an independent EIP-712 construction (ethers.TypedDataEncoder).
import { recoverAddress, TypedDataEncoder } from "ethers";
import { describe, expect, it } from "vitest";
import { Decimal } from "../../../../src/lib/decimal.js";
import { ValidationError } from "../../../../src/lib/errors.js";
import { stringifyJson } from "../../../../src/lib/json.js";
import {
  buildApproveAgent,
  buildCDeposit,
  buildCWithdraw,
  buildLinkStakingUser,
  buildTokenDelegate,
  EXCHANGE_ACTIONS,
  type UserSignedAction,
} from "../../../../src/venue/exchange/actions/index.js";
import { NETWORKS } from "../../../../src/venue/networks.js";
import {
  privateKeySigner,
  recoverActionSigner,
  signAction,
  USER_SIGNED_TYPES,
} from "../../../../src/venue/signing/index.js";

const KEY = "0x0123456789012345678901234567890123456789012345678901234567890123";
const VALIDATOR_MIXED = "0x5AC99df645f3414876C816Caa18b2d234024b487";
const VALIDATOR = VALIDATOR_MIXED.toLowerCase();
const NONCE = 1735380381353;

function issuesOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).issues.map((i) => i.path);
  }
  throw new Error("expected a ValidationError");
}

/** Digest built by ethers from the wire JSON and the reference type list: a different code path. */
function independentDigest(action: UserSignedAction): string {
  const spec = USER_SIGNED_TYPES[action.type];
  const message: Record<string, unknown> = {};
  for (const f of spec.fields) message[f.name] = (action as unknown as Record<string, unknown>)[f.name] ?? "";
  return TypedDataEncoder.hash(
    {
      name: "HyperliquidSignTransaction",
      version: "1",
      chainId: BigInt(action.signatureChainId),
      verifyingContract: "0x0000000000000000000000000000000000000000",
    },
    { [spec.primaryType]: spec.fields.map((f) => ({ ...f })) },
    message,
  );
}

describe("key order of every user-signed builder", () => {
  it.each([
    [
      "tokenDelegate",
      () =>
        buildTokenDelegate({
          network: "mainnet",
          validator: VALIDATOR_MIXED,
          amount: "1",
          isUndelegate: false,
          nonce: NONCE,
        }),
      `{"type":"tokenDelegate","signatureChainId":"0xa4b1","hyperliquidChain":"Mainnet","validator":"${VALIDATOR}","wei":100000000,"isUndelegate":false,"nonce":${NONCE}}`,
    ],
    [
      "cDeposit",
      () => buildCDeposit({ network: "testnet", amount: "1", nonce: NONCE }),
      `{"type":"cDeposit","signatureChainId":"0x66eee","hyperliquidChain":"Testnet","wei":100000000,"nonce":${NONCE}}`,
    ],
    [
      "cWithdraw",
      () => buildCWithdraw({ network: "mainnet", amount: "0.5", nonce: NONCE, signatureChainId: "0x66eee" }),
      `{"type":"cWithdraw","signatureChainId":"0x66eee","hyperliquidChain":"Mainnet","wei":50000000,"nonce":${NONCE}}`,
    ],
    [
      "linkStakingUser",
      () =>
        buildLinkStakingUser({ network: "testnet", user: VALIDATOR_MIXED, isFinalize: true, nonce: NONCE }),
      `{"type":"linkStakingUser","signatureChainId":"0x66eee","hyperliquidChain":"Testnet","user":"${VALIDATOR}","isFinalize":true,"nonce":${NONCE}}`,
    ],
    [
      "approveAgent (named)",
      () =>
        buildApproveAgent({
          network: "mainnet",
          agentAddress: VALIDATOR_MIXED,
          agentName: "twap-bot",
          nonce: NONCE,
        }),
      `{"type":"approveAgent","signatureChainId":"0xa4b1","hyperliquidChain":"Mainnet","agentAddress":"${VALIDATOR}","agentName":"twap-bot","nonce":${NONCE}}`,
    ],
    [
      "approveAgent (unnamed)",
      () => buildApproveAgent({ network: "testnet", agentAddress: VALIDATOR, nonce: NONCE }),
      `{"type":"approveAgent","signatureChainId":"0x66eee","hyperliquidChain":"Testnet","agentAddress":"${VALIDATOR}","nonce":${NONCE}}`,
    ],
    [
      "approveAgent (empty name)",
      () => buildApproveAgent({ network: "testnet", agentAddress: VALIDATOR, agentName: "", nonce: NONCE }),
      `{"type":"approveAgent","signatureChainId":"0x66eee","hyperliquidChain":"Testnet","agentAddress":"${VALIDATOR}","nonce":${NONCE}}`,
    ],
  ])("%s", (_label, build, json) => {
    expect(JSON.stringify(build())).toBe(json);
  });

  it("the default signatureChainId is the network's, and a given one is lower-cased", () => {
    for (const network of ["mainnet", "testnet"] as const) {
      const a = buildCDeposit({ network, amount: "1", nonce: NONCE });
      expect(a.signatureChainId).toBe(NETWORKS[network].signatureChainId);
      expect(a.hyperliquidChain).toBe(NETWORKS[network].hyperliquidChain);
    }
    expect(
      buildCDeposit({ network: "mainnet", amount: "1", nonce: NONCE, signatureChainId: "0xA4B1" })
        .signatureChainId,
    ).toBe("0xa4b1");
  });
});

describe("HYPE amount → wei", () => {
  const wei = (amount: string | Decimal) => buildCDeposit({ network: "testnet", amount, nonce: NONCE }).wei;

  it.each([
    ["1", 100000000],
    ["1.0", 100000000],
    ["0.00000001", 1],
    ["12.34567891", 1234567891],
    ["90071992.54740991", 9007199254740991],
  ])("%s HYPE → %d wei (a number while exact)", (amount, expected) => {
    expect(wei(amount)).toBe(expected);
  });

  it("beyond 2^53 − 1 wei it is an exact bigint, serialised as bare digits", () => {
    const action = buildCDeposit({ network: "testnet", amount: "90071992.54740993", nonce: NONCE });
    expect(action.wei).toBe(9007199254740993n);
    expect(stringifyJson(action)).toContain('"wei":9007199254740993,');
    expect(wei("184467440737.09551615")).toBe(18446744073709551615n);
  });

  it("accepts a Decimal", () => {
    expect(wei(new Decimal("2.5"))).toBe(250000000);
  });

  it.each([
    ["more than 8 decimals", "0.000000001", /more than 8 decimal places/],
    ["negative", "-1", /must not be negative/],
    ["zero", "0", /at least 0\.00000001/],
    ["above uint64", "184467440737.09551616", /exceeds uint64/],
    ["an exponent", "1e-8", /expected a decimal number/],
    ["not a number", "one", /expected a decimal number/],
  ])("refuses %s", (_label, amount, message) => {
    let caught: unknown;
    try {
      wei(amount);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).field).toBe("amount");
    expect((caught as Error).message).toMatch(message);
  });
});

describe("validation of user-signed builders", () => {
  it.each([
    [
      "a short validator",
      () =>
        buildTokenDelegate({
          network: "mainnet",
          validator: "0x1234",
          amount: "1",
          isUndelegate: false,
          nonce: NONCE,
        }),
      ["validator"],
    ],
    [
      "a validator without 0x",
      () =>
        buildTokenDelegate({
          network: "mainnet",
          validator: VALIDATOR.slice(2),
          amount: "1",
          isUndelegate: false,
          nonce: NONCE,
        }),
      ["validator"],
    ],
    [
      "isUndelegate not boolean",
      () =>
        buildTokenDelegate({
          network: "mainnet",
          validator: VALIDATOR,
          amount: "1",
          isUndelegate: "no" as unknown as boolean,
          nonce: NONCE,
        }),
      ["isUndelegate"],
    ],
    ["nonce zero", () => buildCDeposit({ network: "mainnet", amount: "1", nonce: 0 }), ["nonce"]],
    ["nonce fractional", () => buildCWithdraw({ network: "mainnet", amount: "1", nonce: 1.5 }), ["nonce"]],
    [
      "unknown network",
      () => buildCDeposit({ network: "devnet" as "mainnet", amount: "1", nonce: NONCE }),
      ["network"],
    ],
    [
      "bad signatureChainId",
      () => buildCDeposit({ network: "mainnet", amount: "1", nonce: NONCE, signatureChainId: "0xzz" }),
      ["signatureChainId"],
    ],
    [
      "a bad user",
      () => buildLinkStakingUser({ network: "testnet", user: "me", isFinalize: false, nonce: NONCE }),
      ["user"],
    ],
    [
      "a bad agent address",
      () => buildApproveAgent({ network: "testnet", agentAddress: `${VALIDATOR}0`, nonce: NONCE }),
      ["agentAddress"],
    ],
    [
      "several at once",
      () =>
        buildTokenDelegate({
          network: "mainnet",
          validator: "x",
          amount: "-1",
          isUndelegate: false,
          nonce: -1,
        }),
      ["amount", "nonce", "validator"],
    ],
  ])("%s", (_label, build, fields) => {
    expect(issuesOf(build).sort()).toEqual(fields);
  });
});

describe("built actions sign, and recover under an independent EIP-712 construction", () => {
  const cases: [string, () => UserSignedAction][] = [
    [
      "tokenDelegate",
      () =>
        buildTokenDelegate({
          network: "mainnet",
          validator: VALIDATOR_MIXED,
          amount: "10.5",
          isUndelegate: true,
          nonce: NONCE,
        }),
    ],
    ["cDeposit", () => buildCDeposit({ network: "testnet", amount: "0.00000001", nonce: NONCE })],
    [
      "cWithdraw (bigint wei)",
      () =>
        buildCWithdraw({ network: "mainnet", amount: "100000000", nonce: NONCE, signatureChainId: "0x1" }),
    ],
    [
      "linkStakingUser",
      () => buildLinkStakingUser({ network: "testnet", user: VALIDATOR, isFinalize: false, nonce: NONCE }),
    ],
    [
      "approveAgent (named)",
      () =>
        buildApproveAgent({
          network: "mainnet",
          agentAddress: VALIDATOR,
          agentName: "bot valid_until 1800000000000",
          nonce: NONCE,
        }),
    ],
    [
      "approveAgent (unnamed)",
      () => buildApproveAgent({ network: "testnet", agentAddress: VALIDATOR, nonce: NONCE }),
    ],
  ];
  it.each(cases)("%s", async (_label, build) => {
    const signer = privateKeySigner(KEY);
    const action = build();
    expect(EXCHANGE_ACTIONS[action.type].signing).toBe("user");
    const wire = action as unknown as Record<string, unknown>;
    const signature = await signAction(signer, { action: wire, nonce: NONCE, network: "mainnet" });
    expect(recoverAddress(independentDigest(action), signature).toLowerCase()).toBe(signer.address);
    expect(recoverActionSigner({ action: wire, nonce: NONCE, network: "mainnet", signature })).toBe(
      signer.address,
    );
  });
});

describe("user-signed response schema", () => {
  it.each(Object.entries(EXCHANGE_ACTIONS).filter(([, v]) => v.signing === "user"))(
    "%s",
    (_type, { response }) => {
      expect(response.parse({ status: "ok", response: { type: "default" } })).toEqual({
        status: "ok",
        response: { type: "default" },
      });
      expect(
        response.parse({ status: "err", response: "Must deposit before performing actions. User: 0xabc" })
          .status,
      ).toBe("err");
      expect(response.safeParse({ status: "ok", response: { type: "twapOrder" } }).success).toBe(false);
      expect(response.safeParse({ status: "ok" }).success).toBe(false);
    },
  );
});
