// Wallets: who signs. A Signer is only an address and a raw-digest signing function, small enough that
// a KMS or hardware signer can implement it later. The local implementation keeps the private key in a
// closure (never a property, so it cannot be logged or serialised) and registers it with the redactor
// the moment it is read.

import { readFile } from "node:fs/promises";
import { secp256k1 } from "@noble/curves/secp256k1";
import { ConfigError, ValidationError } from "../../lib/errors.js";
import { exposedSecretFileWarning, PRIVATE_KEY_PATTERN, registerSecret } from "../../lib/secrets.js";
import type { Address } from "./hex.js";
import { fromHex } from "./hex.js";
import { addressOfPublicKey, formatSignature, type Signature } from "./recover.js";

export type { Signature } from "./recover.js";

export interface Signer {
  /** Lower-case address of the signing key. */
  readonly address: Address;
  /** Raw secp256k1 over a 32-byte digest: no EIP-191 prefix, deterministic (RFC 6979), low-s. */
  signDigest(digest: Uint8Array): Promise<Signature>;
}

export const DEFAULT_PRIVATE_KEY_ENV = "HLBOT_PRIVATE_KEY";
export const DEFAULT_KEYSTORE_PASSWORD_ENV = "HLBOT_KEYSTORE_PASSWORD";

/**
 * A signer from a hex private key (64 digits, optional 0x). ConfigError when it is not a valid key;
 * the message never contains the key.
 */
export function privateKeySigner(privateKey: string, label = "private key"): Signer {
  const text = typeof privateKey === "string" ? privateKey.trim() : "";
  registerSecret(text);
  if (!PRIVATE_KEY_PATTERN.test(text)) {
    throw new ConfigError(
      `${label} is not a valid private key (expected 64 hex digits, optionally 0x-prefixed)`,
    );
  }
  const keyBytes = fromHex(text);
  if (!secp256k1.utils.isValidSecretKey(keyBytes)) {
    throw new ConfigError(`${label} is not a valid private key (outside the secp256k1 key range)`);
  }
  // Derived with noble rather than ethers: importing ethers costs ~100 ms of start-up for every command
  // that loads a signer (ethers is only imported, lazily, to decrypt keystores).
  const address = addressOfPublicKey(secp256k1.getPublicKey(keyBytes, false));
  const signer: Signer = {
    address,
    async signDigest(digest: Uint8Array): Promise<Signature> {
      if (!(digest instanceof Uint8Array) || digest.length !== 32) {
        throw new ValidationError(`a digest to sign must be 32 bytes`);
      }
      const sig = secp256k1.sign(digest, keyBytes, { prehash: false, lowS: true });
      return formatSignature(sig.r, sig.s, sig.recovery);
    },
  };
  return Object.freeze(signer);
}

export interface SignerSource {
  /** Environment variable holding the hex private key (default HLBOT_PRIVATE_KEY). Ignored with `keystore`. */
  privateKeyEnv?: string;
  /** File holding the hex private key (a Docker or Kubernetes secret mounted as a file). */
  privateKeyFile?: string;
  /** Path of an encrypted JSON keystore (the ethers / geth format). */
  keystore?: string;
  /** Environment variable holding the keystore password (default HLBOT_KEYSTORE_PASSWORD). */
  passwordEnv?: string;
  /** File holding the keystore password (trailing line breaks are ignored). Takes precedence over the env. */
  passwordFile?: string;
}

export interface LoadSignerOptions {
  /** Where a warning about a keystore or password file other users can read goes (default stderr). */
  warn?: (message: string) => void;
}

/**
 * Loads the configured signer: a keystore file when `keystore` is set, a key file when `privateKeyFile`
 * is, otherwise a private key from the environment, where `<NAME>_FILE` naming a file stands in for an
 * unset `<NAME>` (the convention of official Docker images, so `HLBOT_PRIVATE_KEY_FILE=/run/secrets/key`
 * works with no change to the bot file). Every failure is a ConfigError with a message that names the
 * variable or file but never contains the key or the password.
 */
export async function loadSigner(
  source: SignerSource = {},
  env: NodeJS.ProcessEnv = process.env,
  options: LoadSignerOptions = {},
): Promise<Signer> {
  const warn = options.warn ?? ((m: string) => process.stderr.write(`hlbot: warning: ${m}\n`));
  if (source.keystore !== undefined) return loadKeystoreSigner(source, env, warn);
  if (source.privateKeyFile !== undefined) return keyFileSigner(source.privateKeyFile, warn);
  const name = source.privateKeyEnv ?? DEFAULT_PRIVATE_KEY_ENV;
  const value = env[name];
  if (value === undefined || value.trim() === "") {
    const file = env[`${name}_FILE`];
    if (file !== undefined && file.trim() !== "") return keyFileSigner(file.trim(), warn);
    throw new ConfigError(
      `environment variable ${name} is ${value === undefined ? "not set" : "set but empty"}: it must hold the signing key (or set ${name}_FILE to a file holding it, or use wallet.privateKeyFile or a keystore)`,
    );
  }
  return privateKeySigner(value, `environment variable ${name}`);
}

/** A signer from a file holding the hex key (surrounding whitespace ignored). */
async function keyFileSigner(file: string, warn: (message: string) => void): Promise<Signer> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new ConfigError(`cannot read private key file: ${(err as NodeJS.ErrnoException).code ?? "error"}`, {
      file,
    });
  }
  registerSecret(text.trim());
  const warning = exposedSecretFileWarning(file, "private key file");
  if (warning) warn(warning);
  return privateKeySigner(text, `private key file ${file}`);
}

/** Keystore passwords shorter than this are warned of. */
const WEAK_PASSWORD_LENGTH = 12;

async function loadKeystoreSigner(
  source: SignerSource,
  env: NodeJS.ProcessEnv,
  warn: (message: string) => void,
): Promise<Signer> {
  const file = source.keystore!;
  // The file first: a keystore that is not there is said as such, not as a missing password.
  let json: string;
  try {
    json = await readFile(file, "utf8");
  } catch (err) {
    throw new ConfigError(`cannot read keystore file: ${(err as NodeJS.ErrnoException).code ?? "error"}`, {
      file,
    });
  }
  const password = await readPassword(source, env, file);
  registerSecret(password);
  // A short password is weak, and redaction gives it away: "[REDACTED]" wherever it stood in an error or
  // a URL (a security audit: the password "hyperliquid" blanked part of the venue's host name).
  if (password.length > 0 && password.length < WEAK_PASSWORD_LENGTH)
    warn(
      `the keystore password is short (${password.length} characters): use a long random one (at least ${WEAK_PASSWORD_LENGTH}); hlbot redacts it from everything it writes, and a short one is easy to spot where it was blanked`,
    );
  // Read anyway (the owner asked for it), but say so: anyone who can read both files holds the key.
  for (const [path, what] of [
    [file, "keystore"],
    [source.passwordFile, "keystore password file"],
  ] as const) {
    const warning = path === undefined ? undefined : exposedSecretFileWarning(path, what);
    if (warning) warn(warning);
  }
  const { decryptKeystoreJson, isKeystoreJson } = await import("ethers");
  if (!isKeystoreJson(json)) {
    throw new ConfigError("not an encrypted JSON keystore (expected version 3 with a crypto section)", {
      file,
    });
  }
  let privateKey: string;
  try {
    privateKey = (await decryptKeystoreJson(json, password)).privateKey;
  } catch (err) {
    // ethers' messages are fixed strings, but they are not passed on: they could change, and the reason
    // a person can act on is one of these two.
    const wrongPassword = err instanceof Error && /password/i.test(err.message);
    // An empty password that does not open it is almost always a password file written empty (or a
    // variable set to nothing): say that, not "the password given".
    const emptyFrom =
      password !== ""
        ? undefined
        : source.passwordFile !== undefined
          ? `the password file ${source.passwordFile} is empty (nothing but line breaks): write the keystore's password into it`
          : `environment variable ${source.passwordEnv ?? DEFAULT_KEYSTORE_PASSWORD_ENV} is set but empty: set it to the keystore's password`;
    throw new ConfigError(
      wrongPassword
        ? `cannot decrypt keystore: ${emptyFrom ?? "the password given does not open it"}`
        : "cannot decrypt keystore: corrupt or unsupported file",
      { file },
    );
  }
  registerSecret(privateKey);
  return privateKeySigner(privateKey, "keystore key");
}

async function readPassword(source: SignerSource, env: NodeJS.ProcessEnv, keystore: string): Promise<string> {
  if (source.passwordFile !== undefined) {
    let text: string;
    try {
      text = await readFile(source.passwordFile, "utf8");
    } catch (err) {
      throw new ConfigError(
        `cannot read keystore password file: ${(err as NodeJS.ErrnoException).code ?? "error"}`,
        { file: source.passwordFile },
      );
    }
    return text.replace(/[\r\n]+$/, "");
  }
  const name = source.passwordEnv ?? DEFAULT_KEYSTORE_PASSWORD_ENV;
  const value = env[name];
  if (value === undefined) {
    throw new ConfigError(
      `keystore needs a password: set environment variable ${name} or use a password file`,
      {
        file: keystore,
      },
    );
  }
  return value;
}
