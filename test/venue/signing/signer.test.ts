// Wallets: the private-key signer, loading it from the environment or from an ethers keystore, and
// that neither the key nor the password ever shows up in an error, in the signer object or in output.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { secp256k1 } from "@noble/curves/secp256k1";
import { encryptKeystoreJsonSync, SigningKey, Wallet } from "ethers";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, describeError } from "../../../src/lib/errors.js";
import { redact } from "../../../src/lib/secrets.js";
import { toHex } from "../../../src/venue/signing/hex.js";
import { recoverDigestSigner } from "../../../src/venue/signing/recover.js";
import { loadSigner, privateKeySigner } from "../../../src/venue/signing/signer.js";

const KEY = "0x0123456789012345678901234567890123456789012345678901234567890123";
const ADDRESS = "0x14791697260e4c9a71f18484c9f997b308e59325";
const KEY_BODY = KEY.slice(2);
const PASSWORD = "correct horse battery staple";

const dir = mkdtempSync(join(tmpdir(), "hlbot-signer-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A keystore with a low scrypt cost so the test is fast (real ones use N = 2^17). */
function writeKeystore(name: string, key = KEY, password = PASSWORD): string {
  const file = join(dir, name);
  const json = encryptKeystoreJsonSync({ address: new Wallet(key).address, privateKey: key }, password, {
    scrypt: { N: 1 << 10 },
  });
  writeFileSync(file, json);
  return file;
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected a rejection");
}

function assertNoSecrets(text: string): void {
  expect(text.toLowerCase()).not.toContain(KEY_BODY);
  expect(text).not.toContain(PASSWORD);
}

describe("privateKeySigner", () => {
  it("derives the lower-case address, with or without 0x", () => {
    expect(privateKeySigner(KEY).address).toBe(ADDRESS);
    expect(privateKeySigner(KEY_BODY).address).toBe(ADDRESS);
    expect(privateKeySigner(` ${KEY.toUpperCase().replace("0X", "0x")}\n`).address).toBe(ADDRESS);
  });

  it("signs raw digests exactly like ethers SigningKey (deterministic, low-s, v 27/28)", async () => {
    const signer = privateKeySigner(KEY);
    for (let i = 0; i < 20; i++) {
      const digest = new Uint8Array(32).map((_, j) => (i * 31 + j * 7) & 0xff);
      const ours = await signer.signDigest(digest);
      const theirs = new SigningKey(KEY).sign(digest);
      expect(ours).toEqual({ r: theirs.r, s: theirs.s, v: theirs.v });
      expect(BigInt(ours.s) <= secp256k1.CURVE.n / 2n).toBe(true);
      expect(recoverDigestSigner(digest, ours)).toBe(ADDRESS);
    }
  });

  it("refuses a digest that is not 32 bytes", async () => {
    await expect(privateKeySigner(KEY).signDigest(new Uint8Array(31))).rejects.toThrow(/32 bytes/);
  });

  it("never exposes the key through the object", () => {
    const signer = privateKeySigner(KEY);
    assertNoSecrets(JSON.stringify(signer));
    assertNoSecrets(inspect(signer, { showHidden: true, depth: 5 }));
    expect(Object.keys(signer).sort()).toEqual(["address", "signDigest"]);
    expect(Object.isFrozen(signer)).toBe(true);
  });

  it("registers the key with the redactor", () => {
    privateKeySigner(KEY);
    expect(redact(`leaked ${KEY} and ${KEY_BODY.toUpperCase()}`)).toBe("leaked [REDACTED] and [REDACTED]");
  });

  it.each([
    ["too short", KEY.slice(0, -1)],
    ["not hex", `${KEY.slice(0, -1)}g`],
    ["zero", `0x${"0".repeat(64)}`],
    ["the curve order", `0x${secp256k1.CURVE.n.toString(16)}`],
    ["empty", ""],
  ])("rejects a key that is %s with a ConfigError that does not contain it", (_label, bad) => {
    let caught: unknown;
    try {
      privateKeySigner(bad);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const text = `${(caught as Error).message} ${describeError(caught)} ${inspect(caught)}`;
    if (bad.length > 8) expect(text.toLowerCase()).not.toContain(bad.slice(2, 40).toLowerCase());
    expect((caught as Error).message).toMatch(/not a valid private key/);
  });
});

describe("loadSigner from the environment", () => {
  it("reads HLBOT_PRIVATE_KEY by default", async () => {
    expect((await loadSigner({}, { HLBOT_PRIVATE_KEY: KEY })).address).toBe(ADDRESS);
  });

  it("reads a configured variable name", async () => {
    const signer = await loadSigner({ privateKeyEnv: "MY_KEY" }, { MY_KEY: KEY, HLBOT_PRIVATE_KEY: "junk" });
    expect(signer.address).toBe(ADDRESS);
  });

  it("a missing variable is a ConfigError naming it", async () => {
    const err = await rejection(loadSigner({ privateKeyEnv: "MY_KEY" }, {}));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain("MY_KEY");
    expect(err.message).toMatch(/not set/);
    // Set but empty (a secret.env line left blank) is said as such (a disaster trial read "not set").
    const empty = await rejection(loadSigner({}, { HLBOT_PRIVATE_KEY: "  " }));
    expect(empty.message).toMatch(
      /^environment variable HLBOT_PRIVATE_KEY is set but empty: it must hold the signing key/,
    );
  });

  it("an invalid key is a ConfigError naming the variable, never the value", async () => {
    const bad = `${KEY}00`;
    const err = await rejection(loadSigner({}, { HLBOT_PRIVATE_KEY: bad }));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain("HLBOT_PRIVATE_KEY");
    assertNoSecrets(`${err.message} ${inspect(err)}`);
  });
});

describe("loadSigner from a key file (Docker and Kubernetes secrets mounted as files)", () => {
  function keyFile(name: string, text: string, mode = 0o600): string {
    const file = join(dir, name);
    writeFileSync(file, text, { mode });
    chmodSync(file, mode);
    return file;
  }

  it("reads wallet.privateKeyFile, ignoring surrounding whitespace, and prefers it over the environment", async () => {
    const file = keyFile("key.hex", `  ${KEY}\n`);
    const warnings: string[] = [];
    const signer = await loadSigner(
      { privateKeyFile: file },
      { HLBOT_PRIVATE_KEY: "junk" },
      { warn: (m) => warnings.push(m) },
    );
    expect(signer.address).toBe(ADDRESS);
    expect(warnings).toEqual([]);
  });

  it("<NAME>_FILE stands in for an unset <NAME>, the official Docker images' convention", async () => {
    const file = keyFile("env-file.hex", KEY_BODY);
    expect((await loadSigner({}, { HLBOT_PRIVATE_KEY_FILE: file })).address).toBe(ADDRESS);
    const named = await loadSigner({ privateKeyEnv: "MY_KEY" }, { MY_KEY_FILE: file });
    expect(named.address).toBe(ADDRESS);
    // The variable itself, when set, wins.
    const other = `0x${"1".repeat(64)}`;
    const both = await loadSigner({}, { HLBOT_PRIVATE_KEY: other, HLBOT_PRIVATE_KEY_FILE: file });
    expect(both.address).not.toBe(ADDRESS);
  });

  it("warns when other users can read the file, and still loads it", async () => {
    const file = keyFile("shared.hex", KEY, 0o644);
    const warnings: string[] = [];
    const signer = await loadSigner({ privateKeyFile: file }, {}, { warn: (m) => warnings.push(m) });
    expect(signer.address).toBe(ADDRESS);
    expect(warnings.join("\n")).toMatch(
      /private key file .*shared\.hex can be read by other users \(mode 0644\)/,
    );
  });

  it("a missing file and a file without a key are ConfigErrors naming the file, never the content", async () => {
    const missing = await rejection(loadSigner({ privateKeyFile: join(dir, "absent.hex") }, {}));
    expect(missing).toBeInstanceOf(ConfigError);
    expect(describeError(missing)).toMatch(/cannot read private key file: ENOENT/);
    expect(describeError(missing)).toContain("absent.hex");
    const file = keyFile("bad.hex", `${KEY}00`);
    const bad = await rejection(loadSigner({}, { HLBOT_PRIVATE_KEY_FILE: file }));
    expect(bad).toBeInstanceOf(ConfigError);
    expect(bad.message).toMatch(/private key file .*bad\.hex is not a valid private key/);
    assertNoSecrets(`${bad.message} ${inspect(bad)}`);
  });
});

describe("loadSigner from an encrypted keystore", () => {
  const keystore = writeKeystore("key.json");

  it("with the password from the default environment variable", async () => {
    const signer = await loadSigner({ keystore }, { HLBOT_KEYSTORE_PASSWORD: PASSWORD });
    expect(signer.address).toBe(ADDRESS);
    const digest = new Uint8Array(32).fill(7);
    expect(recoverDigestSigner(digest, await signer.signDigest(digest))).toBe(ADDRESS);
  });

  it("warns of a short password (a security audit: redaction gave away the password 'hyperliquid')", async () => {
    const warnings: string[] = [];
    const weak = writeKeystore("weak.json", KEY, "hyperliquid");
    const signer = await loadSigner(
      { keystore: weak },
      { HLBOT_KEYSTORE_PASSWORD: "hyperliquid" },
      {
        warn: (m) => warnings.push(m),
      },
    );
    expect(signer.address).toBe(ADDRESS);
    expect(warnings.filter((w) => /short/.test(w))).toEqual([
      expect.stringMatching(/^the keystore password is short \(11 characters\)/),
    ]);
    expect(warnings.join("")).not.toContain("hyperliquid");
    warnings.length = 0;
    await loadSigner({ keystore }, { HLBOT_KEYSTORE_PASSWORD: PASSWORD }, { warn: (m) => warnings.push(m) });
    expect(warnings.filter((w) => /short/.test(w))).toEqual([]);
  });

  it("with the password from a configured environment variable", async () => {
    const signer = await loadSigner({ keystore, passwordEnv: "KS_PASS" }, { KS_PASS: PASSWORD });
    expect(signer.address).toBe(ADDRESS);
  });

  it("with the password from a file (a trailing newline is ignored)", async () => {
    const passwordFile = join(dir, "password.txt");
    writeFileSync(passwordFile, `${PASSWORD}\n`);
    const signer = await loadSigner({ keystore, passwordFile }, {});
    expect(signer.address).toBe(ADDRESS);
  });

  it("ignores HLBOT_PRIVATE_KEY when a keystore is configured", async () => {
    const other = Wallet.createRandom().privateKey;
    const signer = await loadSigner(
      { keystore },
      { HLBOT_PRIVATE_KEY: other, HLBOT_KEYSTORE_PASSWORD: PASSWORD },
    );
    expect(signer.address).toBe(ADDRESS);
  });

  it("a wrong password is a ConfigError naming the file, never the password or key", async () => {
    const wrong = "this is not the password";
    const err = await rejection(loadSigner({ keystore }, { HLBOT_KEYSTORE_PASSWORD: wrong }));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain(keystore);
    expect(err.message).toMatch(/the password given does not open it/);
    const text = `${err.message} ${describeError(err)} ${inspect(err)}`;
    expect(text).not.toContain(wrong);
    assertNoSecrets(text);
  });

  it('a password that is a word of the message does not blank the message ("wrong")', async () => {
    const err = await rejection(loadSigner({ keystore }, { HLBOT_KEYSTORE_PASSWORD: "wrong" }));
    expect(describeError(err)).toMatch(/cannot decrypt keystore: the password given does not open it/);
  });

  it("a wrong password from a file is reported the same way", async () => {
    const passwordFile = join(dir, "wrong.txt");
    writeFileSync(passwordFile, "hunter2-but-longer\n");
    const err = await rejection(loadSigner({ keystore, passwordFile }, {}));
    expect(err).toBeInstanceOf(ConfigError);
    expect(`${err.message} ${inspect(err)}`).not.toContain("hunter2-but-longer");
  });

  it("an empty password file (or variable) is said to be empty, not a wrong password", async () => {
    // A user's trial: a password file written empty gave "the password given does not open it".
    const passwordFile = join(dir, "empty.txt");
    writeFileSync(passwordFile, "\n");
    const fromFile = await rejection(loadSigner({ keystore, passwordFile }, {}));
    expect(fromFile).toBeInstanceOf(ConfigError);
    expect(describeError(fromFile)).toMatch(
      new RegExp(
        `cannot decrypt keystore: the password file ${passwordFile} is empty .*write the keystore's password into it`,
      ),
    );
    const fromEnv = await rejection(loadSigner({ keystore, passwordEnv: "KS_PASS" }, { KS_PASS: "" }));
    expect(describeError(fromEnv)).toMatch(/environment variable KS_PASS is set but empty/);
  });

  it("no password configured is a ConfigError naming the variable", async () => {
    const err = await rejection(loadSigner({ keystore }, {}));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain("HLBOT_KEYSTORE_PASSWORD");
  });

  it("a missing keystore or password file is a ConfigError naming the file", async () => {
    const missing = join(dir, "nope.json");
    const err = await rejection(loadSigner({ keystore: missing }, { HLBOT_KEYSTORE_PASSWORD: PASSWORD }));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain(missing);
    expect(err.message).toContain("ENOENT");
    const err2 = await rejection(loadSigner({ keystore, passwordFile: join(dir, "nope.txt") }, {}));
    expect(err2).toBeInstanceOf(ConfigError);
    expect(err2.message).toContain("nope.txt");
  });

  it("a file that is not a keystore is a ConfigError", async () => {
    const file = join(dir, "not-a-keystore.json");
    writeFileSync(file, JSON.stringify({ hello: "world" }));
    const err = await rejection(loadSigner({ keystore: file }, { HLBOT_KEYSTORE_PASSWORD: PASSWORD }));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toMatch(/not an encrypted JSON keystore/);
  });

  it("a tampered keystore is a ConfigError", async () => {
    const file = writeKeystore("tampered.json");
    const json = JSON.parse(readFileSync(file, "utf8"));
    // ethers writes "Crypto"; the format allows either spelling.
    const section = json.Crypto ?? json.crypto;
    const ct: string = section.ciphertext;
    section.ciphertext = (ct[0] === "0" ? "1" : "0") + ct.slice(1);
    writeFileSync(file, JSON.stringify(json));
    const err = await rejection(loadSigner({ keystore: file }, { HLBOT_KEYSTORE_PASSWORD: PASSWORD }));
    expect(err).toBeInstanceOf(ConfigError);
    assertNoSecrets(`${err.message} ${inspect(err)}`);
  });

  it("signatures from a keystore signer equal those of the same key from the environment", async () => {
    const key = toHex(secp256k1.utils.randomSecretKey());
    const file = writeKeystore("random.json", key);
    const a = await loadSigner({ keystore: file }, { HLBOT_KEYSTORE_PASSWORD: PASSWORD });
    const b = await loadSigner({}, { HLBOT_PRIVATE_KEY: key });
    expect(a.address).toBe(b.address);
    const digest = new Uint8Array(32).fill(9);
    expect(await a.signDigest(digest)).toEqual(await b.signDigest(digest));
  });
});
