// biome-ignore-all lint/suspicious/noControlCharactersInRegex: these tests look for raw control characters in output.
import { describe, expect, it } from "vitest";
import { escapeControls, oneLine } from "../../src/lib/text.js";

const ESC = "\u001b";

describe("terminal text", () => {
  it("escapes screen clears, title changes, OSC 8 links, CR and C1 controls, keeps LF and TAB", () => {
    const hostile = `a${ESC}[2J${ESC}]0;owned\u0007${ESC}]8;;http://x\u0007link${ESC}]8;;\u0007\r\u009b31mb\tc\nd`;
    const out = escapeControls(hostile);
    expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(out).toBe(
      "a\\u001b[2J\\u001b]0;owned\\u0007\\u001b]8;;http://x\\u0007link\\u001b]8;;\\u0007\\u000d\\u009b31mb\tc\nd",
    );
  });

  it("keeps colour sequences only when asked, and never other ESC sequences", () => {
    expect(escapeControls(`${ESC}[31mred${ESC}[39m`, { allowColors: true })).toBe(`${ESC}[31mred${ESC}[39m`);
    expect(escapeControls(`${ESC}[2J`, { allowColors: true })).toBe("\\u001b[2J");
    expect(escapeControls(`${ESC}[31m`)).toBe("\\u001b[31m");
  });

  it("escapes bidi overrides, which show text in another order", () => {
    expect(escapeControls("val\u202Eevil")).toBe("val\\u202eevil");
  });

  it("one-line values also lose LF and TAB (no forged lines)", () => {
    expect(oneLine("Validator\nhlbot: accepted: cWithdraw")).toBe(
      "Validator\\u000ahlbot: accepted: cWithdraw",
    );
  });

  it("an escaped control inside JSON is the same JSON value", () => {
    const value = { name: "x\u009by\u202e" };
    expect(JSON.parse(escapeControls(JSON.stringify(value)))).toEqual(value);
  });

  it("leaves plain text (and non-Latin text) unchanged", () => {
    expect(escapeControls("HYPE 1.5 — ok ✓ 中文")).toBe("HYPE 1.5 — ok ✓ 中文");
  });
});
