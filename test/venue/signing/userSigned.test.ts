// User-signed recipe: type hashes and domain separators from the reference, an independent cross-check
// of every type with ethers.TypedDataEncoder, tampering, signed defaults and the agent refusal.
import { TypedDataEncoder } from "ethers";
import { describe, expect, it } from "vitest";
import { ConfigError, ValidationError } from "../../../src/lib/errors.js";
import { encodeType, typeHash } from "../../../src/venue/signing/eip712.js";
import { toHex } from "../../../src/venue/signing/hex.js";
import { privateKeySigner } from "../../../src/venue/signing/signer.js";
import {
  assertSignerIsAccount,
  recoverUserSignedSigner,
  signingKindOf,
  signUserSignedAction,
  USER_SIGNED_TYPES,
  type UserSignedKind,
  userDomainSeparator,
  userSignedActionDigest,
  userSignedDigest,
} from "../../../src/venue/signing/userSigned.js";

const KEY = "0x0123456789012345678901234567890123456789012345678901234567890123";
const ADDRESS = "0x14791697260e4c9a71f18484c9f997b308e59325";
const VALIDATOR = "0x5ac99df645f3414876c816caa18b2d234024b487";

/** One realistic action per built-in type. */
const SAMPLES: Record<UserSignedKind, Record<string, unknown>> = {
  tokenDelegate: {
    type: "tokenDelegate",
    signatureChainId: "0x66eee",
    hyperliquidChain: "Testnet",
    validator: VALIDATOR,
    wei: 100000000,
    isUndelegate: false,
    nonce: 1735380381353,
  },
  linkStakingUser: {
    type: "linkStakingUser",
    signatureChainId: "0xa4b1",
    hyperliquidChain: "Mainnet",
    user: "0x1d9470d4b963f552e6f671a81619d395877bf409",
    isFinalize: true,
    nonce: 1735380381353,
  },
  cDeposit: {
    type: "cDeposit",
    signatureChainId: "0x66eee",
    hyperliquidChain: "Testnet",
    wei: 1,
    nonce: 1735380381353,
  },
  cWithdraw: {
    type: "cWithdraw",
    signatureChainId: "0x1",
    hyperliquidChain: "Mainnet",
    wei: 18446744073709551615n,
    nonce: 1735380381353,
  },
  approveAgent: {
    type: "approveAgent",
    signatureChainId: "0x66eee",
    hyperliquidChain: "Testnet",
    agentAddress: "0x1d9470d4b963f552e6f671a81619d395877bf409",
    agentName: "twap-bot",
    nonce: 1735380381353,
  },
  usdSend: {
    type: "usdSend",
    signatureChainId: "0x66eee",
    hyperliquidChain: "Testnet",
    destination: "0x5e9ee1089755c3435139848e47e6635505d5a13a",
    amount: "1",
    time: 1687816341423,
  },
  withdraw3: {
    type: "withdraw3",
    signatureChainId: "0xa4b1",
    hyperliquidChain: "Mainnet",
    destination: "0x5e9ee1089755c3435139848e47e6635505d5a13a",
    amount: "12.5",
    time: 1687816341423,
  },
};

const KINDS = Object.keys(USER_SIGNED_TYPES) as UserSignedKind[];

function ethersDigest(action: Record<string, unknown>, kind: UserSignedKind): string {
  const spec = USER_SIGNED_TYPES[kind];
  const message: Record<string, unknown> = {};
  for (const f of spec.fields) message[f.name] = action[f.name];
  return TypedDataEncoder.hash(
    {
      name: "HyperliquidSignTransaction",
      version: "1",
      chainId: BigInt(action.signatureChainId as string),
      verifyingContract: "0x0000000000000000000000000000000000000000",
    },
    { [spec.primaryType]: spec.fields.map((f) => ({ ...f })) },
    message,
  );
}

describe("type hashes and domain separators of user-signed actions", () => {
  it.each([
    ["tokenDelegate", "0x92b330ec2490ea5985392c914fbd03684ac4860d6423151a947ad3022c58270b"],
    ["linkStakingUser", "0x27165ee398ec554a44513917647b374592878a87c4c3c1e43735771d9cf5a5e7"],
    ["cDeposit", "0xad1bf36b33cc8478b96fc8d7f333f55aaacc2d2d5f76e11c6f909ec0e6350d4c"],
    ["cWithdraw", "0x5b373730cec30f6bfdd2055fe781ce6d5aaf3dbb95f9e41f30304bb7235cf434"],
    ["approveAgent", "0x4464abf6148f115d79362d98320081aa2ae8a5c840083cb65820bffc21394378"],
    ["usdSend", "0xc7410964737e2180e258d649f23f74a49460432fecbd94688103ecc63fb66b4c"],
    ["withdraw3", "0xdbde952fa0de88158fc71336e44c61876611a2a65553bebd4d52b44a2a000d9a"],
  ] as [UserSignedKind, string][])("%s", (kind, expected) => {
    const spec = USER_SIGNED_TYPES[kind];
    expect(toHex(typeHash(spec.primaryType, spec.fields))).toBe(expected);
    // ethers derives the same type string from the field list.
    expect(
      TypedDataEncoder.from({ [spec.primaryType]: spec.fields.map((f) => ({ ...f })) }).encodeType(
        spec.primaryType,
      ),
    ).toBe(encodeType(spec.primaryType, spec.fields));
  });

  it.each([
    ["0x66eee", "0xfeb1393ca4412a4ca577bd51d04f0a77033514c602f4d0a11490fb95f7428df6"],
    ["0xa4b1", "0x2f54e643b38c9c2b65cb731aaf11c54f01705ee0cdf45aea16e2ac0a5ce7531a"],
    ["0x1", "0xdb17d1ad595c034a414294c8a640f420ba18e2b7488231f5b97d02780d8e8648"],
  ])("domain separator for %s", (chainId, expected) => {
    expect(toHex(userDomainSeparator(chainId))).toBe(expected);
    expect(toHex(userDomainSeparator(chainId.toUpperCase().replace("0X", "0x")))).toBe(expected);
  });
});

describe("digests agree with ethers.TypedDataEncoder for every type", () => {
  it.each(KINDS)("%s", (kind) => {
    const action = SAMPLES[kind];
    const ours = toHex(userSignedActionDigest(action, kind));
    expect(ours).toBe(ethersDigest(action, kind));
    const spec = USER_SIGNED_TYPES[kind];
    expect(toHex(userSignedDigest(action, spec.primaryType, spec.fields))).toBe(ours);
  });

  it("on other chain ids and networks too", () => {
    for (const chainId of ["0x1", "0xa4b1", "0x66eee", "0x2105"]) {
      for (const chain of ["Mainnet", "Testnet"]) {
        const action = { ...SAMPLES.tokenDelegate, signatureChainId: chainId, hyperliquidChain: chain };
        expect(toHex(userSignedActionDigest(action, "tokenDelegate"))).toBe(
          ethersDigest(action, "tokenDelegate"),
        );
      }
    }
  });
});

describe("remembered string hashes never go stale", () => {
  it("hundreds of distinct strings and integers across the fast and slow paths agree with ethers", () => {
    for (let i = 0; i < 600; i++) {
      const action = {
        ...SAMPLES.usdSend,
        amount: `${i}.${i % 7}`,
        destination: i % 3 === 0 ? "x".repeat(100 + i) : SAMPLES.usdSend.destination,
        time: i % 2 === 0 ? Number.MAX_SAFE_INTEGER - i : BigInt(Number.MAX_SAFE_INTEGER) + BigInt(i),
      };
      expect(toHex(userSignedActionDigest(action, "usdSend"))).toBe(ethersDigest(action, "usdSend"));
    }
  });
});

describe("uint64 encoding boundaries agree with ethers", () => {
  it.each([0, 1, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, 2 ** 52, 2 ** 53 - 1])("wei %d", (wei) => {
    for (const value of [wei, BigInt(wei)]) {
      const action = { ...SAMPLES.cDeposit, wei: value };
      expect(toHex(userSignedActionDigest(action, "cDeposit"))).toBe(ethersDigest(action, "cDeposit"));
    }
  });
});

describe("tampering with a user-signed action changes the recovered address", () => {
  const cases: [UserSignedKind, string, unknown][] = [
    ["tokenDelegate", "validator", "0x5ac99df645f3414876c816caa18b2d234024b488"],
    ["tokenDelegate", "wei", 100000001],
    ["tokenDelegate", "isUndelegate", true],
    ["tokenDelegate", "nonce", 1735380381354],
    ["tokenDelegate", "hyperliquidChain", "Mainnet"],
    ["tokenDelegate", "signatureChainId", "0xa4b1"],
    ["linkStakingUser", "user", "0x1d9470d4b963f552e6f671a81619d395877bf408"],
    ["linkStakingUser", "isFinalize", false],
    ["cDeposit", "wei", 2],
    ["cWithdraw", "wei", 18446744073709551614n],
    ["cWithdraw", "signatureChainId", "0x2"],
    ["approveAgent", "agentName", ""],
    ["approveAgent", "agentAddress", ADDRESS],
    ["usdSend", "destination", "0x5E9ee1089755c3435139848e47e6635505d5a13a"],
    ["withdraw3", "amount", "12.50"],
  ];
  it.each(cases)("%s.%s", async (kind, field, value) => {
    const signer = privateKeySigner(KEY);
    const action = SAMPLES[kind];
    const signature = await signUserSignedAction(signer, action, kind);
    expect(recoverUserSignedSigner(action, kind, signature)).toBe(ADDRESS);
    const tampered = recoverUserSignedSigner({ ...action, [field]: value }, kind, signature);
    expect(tampered).toMatch(/^0x[0-9a-f]{40}$/);
    expect(tampered).not.toBe(ADDRESS);
  });

  it("an address field's case does not matter (hashed as 20 bytes)", async () => {
    const signer = privateKeySigner(KEY);
    const action = SAMPLES.tokenDelegate;
    const signature = await signUserSignedAction(signer, action, "tokenDelegate");
    const upper = { ...action, validator: `0x${VALIDATOR.slice(2).toUpperCase()}` };
    expect(recoverUserSignedSigner(upper, "tokenDelegate", signature)).toBe(ADDRESS);
  });

  it("keys that are not fields (type order, extra keys) do not change the signature", async () => {
    const signer = privateKeySigner(KEY);
    const action = SAMPLES.cDeposit;
    const reordered = {
      nonce: action.nonce,
      wei: action.wei,
      hyperliquidChain: action.hyperliquidChain,
      signatureChainId: action.signatureChainId,
    };
    expect(await signUserSignedAction(signer, reordered, "cDeposit")).toEqual(
      await signUserSignedAction(signer, action, "cDeposit"),
    );
  });
});

describe("signed defaults and validation", () => {
  it('an unnamed agent is signed with agentName "" and may omit the key on the wire', async () => {
    const signer = privateKeySigner(KEY);
    const { agentName: _omit, ...wire } = SAMPLES.approveAgent;
    const withEmpty = { ...wire, agentName: "" };
    expect(toHex(userSignedActionDigest(wire, "approveAgent"))).toBe(ethersDigest(withEmpty, "approveAgent"));
    const signature = await signUserSignedAction(signer, wire, "approveAgent");
    expect(recoverUserSignedSigner(withEmpty, "approveAgent", signature)).toBe(ADDRESS);
  });

  it("a missing field is a ValidationError naming it", () => {
    const { wei: _omit, ...action } = SAMPLES.cDeposit;
    expect(() => userSignedActionDigest(action, "cDeposit")).toThrow(
      /action\.wei: required field is missing/,
    );
  });

  it.each([
    ["wei as a string", { wei: "100000000" }, "action.wei"],
    ["wei negative", { wei: -1 }, "action.wei"],
    ["wei beyond uint64", { wei: 18446744073709551616n }, "action.wei"],
    ["wei fractional", { wei: 1.5 }, "action.wei"],
    ["validator malformed", { validator: "0x1234" }, "action.validator"],
    ["isUndelegate as a string", { isUndelegate: "false" }, "action.isUndelegate"],
    ["signatureChainId not hex", { signatureChainId: "421614" }, "signatureChainId"],
    ["signatureChainId zero", { signatureChainId: "0x0" }, "signatureChainId"],
    ["type of another action", { type: "cDeposit" }, "action.type"],
  ])("%s", (_label, change, field) => {
    let caught: unknown;
    try {
      userSignedActionDigest({ ...SAMPLES.tokenDelegate, ...change }, "tokenDelegate");
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).field).toBe(field);
  });

  it("an unknown kind is refused", () => {
    expect(() => userSignedActionDigest({}, "spotSend" as UserSignedKind)).toThrow(ValidationError);
  });
});

describe("signingKindOf", () => {
  it.each([
    ["twapOrder", "l1"],
    ["twapCancel", "l1"],
    ["order", "l1"],
    ["noop", "l1"],
    ["scheduleCancel", "l1"],
    ["tokenDelegate", "user"],
    ["cDeposit", "user"],
    ["cWithdraw", "user"],
    ["linkStakingUser", "user"],
    ["approveAgent", "user"],
    ["usdSend", "user"],
    ["withdraw3", "user"],
    ["somethingNew", undefined],
    ["toString", undefined],
    ["__proto__", undefined],
  ])("%s → %s", (type, kind) => {
    expect(signingKindOf(type)).toBe(kind);
  });
});

describe("assertSignerIsAccount", () => {
  it("passes for the account itself, in any letter case", () => {
    expect(() =>
      assertSignerIsAccount(ADDRESS, ADDRESS.toUpperCase().replace("0X", "0x"), "tokenDelegate"),
    ).not.toThrow();
  });

  it("refuses an agent signing a user-signed action, naming both addresses", () => {
    const agent = privateKeySigner("0x822e9959e022b78423eb653a62ea0020cd283e71a2a8133a6ff2aeffaf373cff");
    let caught: unknown;
    try {
      assertSignerIsAccount(agent.address, ADDRESS, "tokenDelegate");
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const message = (caught as Error).message;
    expect(message).toContain("tokenDelegate");
    expect(message).toContain(agent.address);
    expect(message).toContain(ADDRESS);
    expect(message).not.toMatch(/822e9959e022b78423eb653a62ea0020cd283e71a2a8133a6ff2aeffaf373cff/i);
  });
});
