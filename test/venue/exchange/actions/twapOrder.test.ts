// twapOrder and twapCancel wire builders: exact key order, truncated canonical sizes, validation, and
// the response schemas.
import { describe, expect, it } from "vitest";
import { Decimal } from "../../../../src/lib/decimal.js";
import { ValidationError } from "../../../../src/lib/errors.js";
import {
  buildTwapCancel,
  buildTwapOrder,
  TwapCancelResponse,
  TwapOrderResponse,
  twapCancelSigning,
  twapOrderSigning,
} from "../../../../src/venue/exchange/actions/index.js";
import { toHex } from "../../../../src/venue/signing/hex.js";
import { l1ActionHash, recoverL1Signer, signL1Action } from "../../../../src/venue/signing/l1.js";
import { privateKeySigner } from "../../../../src/venue/signing/signer.js";

const base = { asset: 10107, isBuy: true, size: "12.5", szDecimals: 2, minutes: 30 };

function issuesOf(fn: () => unknown): { path: string; message: string }[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).issues;
  }
  throw new Error("expected a ValidationError");
}

describe("buildTwapOrder", () => {
  it("produces the keys in the hashed order, with defaults", () => {
    const action = buildTwapOrder(base);
    expect(JSON.stringify(action)).toBe(
      '{"type":"twapOrder","twap":{"a":10107,"b":true,"s":"12.5","r":false,"m":30,"t":false}}',
    );
    expect(twapOrderSigning).toBe("l1");
  });

  it("passes reduceOnly and randomize through", () => {
    const action = buildTwapOrder({ ...base, isBuy: false, reduceOnly: true, randomize: true });
    expect(JSON.stringify(action)).toBe(
      '{"type":"twapOrder","twap":{"a":10107,"b":false,"s":"12.5","r":true,"m":30,"t":true}}',
    );
  });

  it.each([
    ["12.50", 2, "12.5"],
    ["1.23999", 2, "1.23"],
    ["0.999", 0, "0"],
    ["437.5999", 2, "437.59"],
    ["100", 2, "100"],
    ["100.000", 3, "100"],
    ["0.00000001", 8, "0.00000001"],
    ["123456789.987654321", 5, "123456789.98765"],
  ])("size %s at %d decimals → %s (truncated, never rounded up)", (size, szDecimals, wire) => {
    if (wire === "0") {
      expect(issuesOf(() => buildTwapOrder({ ...base, size, szDecimals }))[0]!.message).toMatch(
        /truncates to 0/,
      );
      return;
    }
    expect(buildTwapOrder({ ...base, size, szDecimals }).twap.s).toBe(wire);
  });

  it("accepts a Decimal size", () => {
    expect(buildTwapOrder({ ...base, size: new Decimal("2.000"), szDecimals: 1 }).twap.s).toBe("2");
  });

  it("reproduces the worked example's connectionId from builder input with a trailing zero", () => {
    const action = buildTwapOrder({ asset: 0, isBuy: true, size: "1.50", szDecimals: 2, minutes: 30 });
    expect(toHex(l1ActionHash(action as unknown as Record<string, unknown>, 1700000000000))).toBe(
      "0x18e2c1c850c380b4ebb983a22dec9feb05f019e49e60d0e689d08cb625ad85d4",
    );
  });

  it.each([
    ["asset negative", { asset: -1 }, "asset"],
    ["asset fractional", { asset: 1.5 }, "asset"],
    ["asset a string", { asset: "10107" }, "asset"],
    ["minutes below 5", { minutes: 4 }, "minutes"],
    ["minutes fractional", { minutes: 5.5 }, "minutes"],
    ["minutes above the caller's maximum", { minutes: 1441, maxMinutes: 1440 }, "minutes"],
    ["size zero", { size: "0" }, "size"],
    ["size negative", { size: "-1" }, "size"],
    ["size with an exponent", { size: "1e3" }, "size"],
    ["size empty", { size: "" }, "size"],
    ["szDecimals negative", { szDecimals: -1 }, "szDecimals"],
    ["isBuy a string", { isBuy: "true" }, "isBuy"],
    ["reduceOnly a number", { reduceOnly: 1 }, "reduceOnly"],
  ])("%s is refused naming the field", (_label, change, field) => {
    const issues = issuesOf(() => buildTwapOrder({ ...base, ...(change as object) } as typeof base));
    expect(issues.map((i) => i.path)).toContain(field);
  });

  it("lists every problem at once", () => {
    const issues = issuesOf(() =>
      buildTwapOrder({ asset: -1, isBuy: true, size: "0", szDecimals: 2, minutes: 1 }),
    );
    expect(issues.map((i) => i.path).sort()).toEqual(["asset", "minutes", "size"]);
  });

  it("signs and recovers as an L1 action", async () => {
    const signer = privateKeySigner("0x822e9959e022b78423eb653a62ea0020cd283e71a2a8133a6ff2aeffaf373cff");
    const action = buildTwapOrder(base) as unknown as Record<string, unknown>;
    const p = { action, nonce: 1700000000000, network: "testnet" as const, expiresAfter: 1700000060000 };
    const signature = await signL1Action(signer, p);
    expect(recoverL1Signer({ ...p, signature })).toBe(signer.address);
  });
});

describe("buildTwapCancel", () => {
  it("produces {type, a, t} in that order", () => {
    expect(JSON.stringify(buildTwapCancel({ asset: 10107, twapId: 77738308 }))).toBe(
      '{"type":"twapCancel","a":10107,"t":77738308}',
    );
    expect(twapCancelSigning).toBe("l1");
  });

  it.each([
    [{ asset: -1, twapId: 1 }, "asset"],
    [{ asset: 1, twapId: 1.5 }, "twapId"],
    [{ asset: 1, twapId: 2 ** 53 }, "twapId"],
  ])("%j is refused", (p, field) => {
    expect(issuesOf(() => buildTwapCancel(p)).map((i) => i.path)).toEqual([field]);
  });
});

describe("twapOrder / twapCancel response schemas", () => {
  it("twapOrder running, error and the err envelope", () => {
    const running = TwapOrderResponse.parse({
      status: "ok",
      response: { type: "twapOrder", data: { status: { running: { twapId: 77738308 } } } },
    });
    expect(running.status === "ok" && "running" in running.response.data.status).toBe(true);
    const error = TwapOrderResponse.parse({
      status: "ok",
      response: { type: "twapOrder", data: { status: { error: "Invalid TWAP duration: 1 min(s)" } } },
    });
    expect(
      error.status === "ok" && "error" in error.response.data.status && error.response.data.status.error,
    ).toBe("Invalid TWAP duration: 1 min(s)");
    const err = TwapOrderResponse.parse({
      status: "err",
      response: "Invalid nonce: duplicate nonce 1741107452532",
    });
    expect(err).toEqual({ status: "err", response: "Invalid nonce: duplicate nonce 1741107452532" });
  });

  it("tolerates unknown keys", () => {
    const parsed = TwapOrderResponse.parse({
      status: "ok",
      extra: 1,
      response: { type: "twapOrder", data: { status: { running: { twapId: 1, since: 5 } }, more: true } },
    });
    expect(parsed.status).toBe("ok");
  });

  it.each([
    ["data at the top level", { status: "ok", data: { status: { running: { twapId: 1 } } } }],
    [
      "wrong response type",
      { status: "ok", response: { type: "order", data: { status: { running: { twapId: 1 } } } } },
    ],
    [
      "twapId as a string",
      { status: "ok", response: { type: "twapOrder", data: { status: { running: { twapId: "1" } } } } },
    ],
    ["err without text", { status: "err" }],
    ["null (a 429 body)", null],
  ])("twapOrder rejects %s", (_label, body) => {
    expect(TwapOrderResponse.safeParse(body).success).toBe(false);
  });

  it("twapCancel success, error and the err envelope", () => {
    expect(
      TwapCancelResponse.parse({
        status: "ok",
        response: { type: "twapCancel", data: { status: "success" } },
      }),
    ).toEqual({ status: "ok", response: { type: "twapCancel", data: { status: "success" } } });
    const error = TwapCancelResponse.parse({
      status: "ok",
      response: {
        type: "twapCancel",
        data: { status: { error: "TWAP was never placed, already canceled, or filled." } },
      },
    });
    expect(error.status).toBe("ok");
    expect(TwapCancelResponse.parse({ status: "err", response: "x" }).status).toBe("err");
    expect(
      TwapCancelResponse.safeParse({
        status: "ok",
        response: { type: "twapCancel", data: { status: "done" } },
      }).success,
    ).toBe(false);
  });
});
