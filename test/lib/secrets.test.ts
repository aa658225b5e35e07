// Secrets: what is one (only what is registered), every spelling of a key is redacted, short passwords
// too (as whole words), URL credentials always, and pasted secrets are recognised in arguments.
import { afterEach, describe, expect, it } from "vitest";
import {
  argumentHoldsSecret,
  clearSecretsForTests,
  containsSecret,
  dropSecretVariables,
  isSecretVariable,
  maskKeyShaped,
  redact,
  registerSecret,
  registerSecretVariables,
} from "../../src/lib/secrets.js";

const KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const BARE = KEY.slice(2);
const TX = "0x1d4e1b2c3a4f5e6d7c8b9a0f1e2d3c4b5a6978877665544332211000ffeeddcc";

afterEach(() => clearSecretsForTests());

describe("secrets", () => {
  it("redacts a registered key in every spelling (0x, 0X, bare, any case)", () => {
    registerSecret(`0X${BARE.toUpperCase()}`);
    for (const spelling of [KEY, BARE, BARE.toUpperCase(), `0X${BARE}`, `0x${BARE.toUpperCase()}`]) {
      expect(redact(`got ${spelling}!`)).toBe("got [REDACTED]!");
      expect(containsSecret(spelling)).toBe(true);
      expect(argumentHoldsSecret(spelling)).toBe(true);
      expect(argumentHoldsSecret(`--amount=${spelling}`)).toBe(true);
    }
  });

  it("registers only the variables it is told about, not every key-shaped value", () => {
    const env = { HLBOT_PRIVATE_KEY: KEY, TX };
    registerSecretVariables(env, ["HLBOT_PRIVATE_KEY"]);
    expect(isSecretVariable("HLBOT_PRIVATE_KEY")).toBe(true);
    expect(isSecretVariable("TX")).toBe(false);
    expect(redact(TX)).toBe(TX);
    expect(argumentHoldsSecret(TX)).toBe(false);
    expect(redact(KEY)).toBe("[REDACTED]");
  });

  it("redacts a password shorter than 8 characters where it stands as a word", () => {
    registerSecret("hunter2");
    expect(redact("password: hunter2")).toBe("password: [REDACTED]");
    expect(redact("HUNTER2 at line 3")).toBe("[REDACTED] at line 3");
    // Inside another word it is left alone: a short password must not blank unrelated text.
    expect(redact("xhunter2x")).toBe("xhunter2x");
    expect(argumentHoldsSecret("hunter2")).toBe(true);
    expect(argumentHoldsSecret("1")).toBe(false);
  });

  it("redacts a long password anywhere, and special characters in it are literal", () => {
    registerSecret("p4ss.w(o)rd+long");
    expect(redact("x=p4ss.w(o)rd+longy")).toBe("x=[REDACTED]y");
    expect(redact("p4ssXw(o)rd+long")).toBe("p4ssXw(o)rd+long");
  });

  it("redacts user:password@ in URLs whether or not anything is registered", () => {
    expect(redact("connection failed (http://alice:s3cret@127.0.0.1:9/info): refused")).toBe(
      "connection failed (http://[REDACTED]@127.0.0.1:9/info): refused",
    );
    expect(redact("https://token@host/x")).toBe("https://[REDACTED]@host/x");
    expect(redact("mail me: a@b.c")).toBe("mail me: a@b.c");
  });

  it("redacts the values of URL query parameters named like credentials", () => {
    expect(redact("connection failed (http://127.0.0.1:9/info?apikey=tokQQQ123456): refused")).toBe(
      "connection failed (http://127.0.0.1:9/info?apikey=[REDACTED]): refused",
    );
    expect(redact("https://rpc.example/x?chain=1&access_token=abc.def&sig=zz#f")).toBe(
      "https://rpc.example/x?chain=1&access_token=[REDACTED]&sig=[REDACTED]#f",
    );
    expect(redact("https://rpc.example/x?coin=HYPE&interval=1h")).toBe(
      "https://rpc.example/x?coin=HYPE&interval=1h",
    );
    expect(redact("band=0.05 keyPath=limits")).toBe("band=0.05 keyPath=limits");
  });

  it("masks key-shaped runs, not shorter or longer hex", () => {
    expect(maskKeyShaped(`v ${KEY} w`)).toBe("v [64 hex digits] w");
    expect(maskKeyShaped("0x5ac99df645f3414876c816caa18b2d234024b487")).toBe(
      "0x5ac99df645f3414876c816caa18b2d234024b487",
    );
    expect(maskKeyShaped(`${BARE}ab`)).toBe(`${BARE}ab`);
  });

  it("drops registered variables from an environment", () => {
    const env: Record<string, string | undefined> = { HLBOT_PRIVATE_KEY: KEY, OTHER: "x" };
    registerSecretVariables(env, ["HLBOT_PRIVATE_KEY", "HLBOT_KEYSTORE_PASSWORD"]);
    expect(dropSecretVariables(env)).toEqual(["HLBOT_PRIVATE_KEY"]);
    expect(env).toEqual({ OTHER: "x" });
    // Still redacted after the variable is gone.
    expect(redact(KEY)).toBe("[REDACTED]");
  });
});
