// EIP-55 checksums of addresses typed into config files and flags: a mixed-case address whose case does
// not check out (a digit mistyped from an explorer) is refused; one case, or a good checksum, passes.
import { getAddress } from "ethers";
import { describe, expect, it } from "vitest";
import { parseAddress, readSignerOptions } from "../../src/cli/options.js";
import { checksumProblem, toChecksumAddress } from "../../src/lib/address.js";

const GOOD = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const TYPO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C9"; // last digit changed, case kept

describe("EIP-55", () => {
  it("matches ethers' checksum for random addresses", () => {
    for (let i = 0; i < 200; i++) {
      const hex = `0x${Array.from({ length: 40 }, (_, j) => ((i * 7919 + j * 104729) % 16).toString(16)).join("")}`;
      expect(toChecksumAddress(hex)).toBe(getAddress(hex));
    }
  });

  it("refuses a mixed-case address whose case is wrong, and passes one case or a good checksum", () => {
    expect(checksumProblem(GOOD)).toBeUndefined();
    expect(checksumProblem(GOOD.toLowerCase())).toBeUndefined();
    expect(checksumProblem(`0x${GOOD.slice(2).toUpperCase()}`)).toBeUndefined();
    expect(checksumProblem(TYPO)).toMatch(/mixed case but its case is not its EIP-55 checksum/);
  });

  it("flags: --user and --account refuse a mistyped checksum", () => {
    expect(parseAddress(GOOD, "--user")).toBe(GOOD.toLowerCase());
    expect(() => parseAddress(TYPO, "--user")).toThrow(/EIP-55/);
    expect(() => readSignerOptions({ account: TYPO })).toThrow(/EIP-55/);
    expect(readSignerOptions({ account: GOOD }).account).toBe(GOOD.toLowerCase());
  });
});
