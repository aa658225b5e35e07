// EIP-55 mixed-case checksums (https://eips.ethereum.org/EIPS/eip-55): an address written in mixed case
// carries a checksum in the case of its letters. One mistyped digit of an address copied from an
// explorer then shows; all lower or all upper case carries none. The venue takes addresses in lower
// case, so hlbot only checks the case it is given and lower-cases the address afterwards.
import { keccak_256 } from "@noble/hashes/sha3";
import { utf8ToBytes } from "@noble/hashes/utils";

/** `address` (0x + 40 hex digits) with the EIP-55 case of its letters. */
export function toChecksumAddress(address: string): string {
  const hex = address.slice(2).toLowerCase();
  const hash = keccak_256(utf8ToBytes(hex));
  let out = "0x";
  for (let i = 0; i < hex.length; i++) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    out += nibble >= 8 ? hex[i]!.toUpperCase() : hex[i]!;
  }
  return out;
}

/**
 * Why a mixed-case address is refused (its case is not its EIP-55 checksum: a digit or a letter's case
 * was mistyped), or undefined for one whose case checks out or carries no checksum.
 */
export function checksumProblem(address: string): string | undefined {
  const letters = address.slice(2);
  if (letters === letters.toLowerCase() || letters === letters.toUpperCase()) return undefined;
  if (toChecksumAddress(address) === address) return undefined;
  return `${address} is written in mixed case but its case is not its EIP-55 checksum: a digit may be mistyped. Copy the address again (or write it in lower case to skip the check)`;
}
