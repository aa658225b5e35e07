import { execFile, execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { FLAG_OF_FIELD, INFO_HELP } from "../../src/cli/commands/info.js";
import { parseJson } from "../../src/lib/json.js";
import { INFO_TYPES, infoParameters } from "../../src/venue/info/methods/index.js";
import { runCli } from "../helpers/cli.js";
import { type Reply, startHttpServer, type TestHttpServer } from "../helpers/httpServer.js";
import { validatorSummary } from "../venue/info/fixtures.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const USER = "0x5ac99df645f3414876c816caa18b2d234024b487";

const servers: TestHttpServer[] = [];
afterEach(async () => {
  while (servers.length) await servers.pop()!.close();
});

async function venue(replies: Reply[]): Promise<TestHttpServer> {
  const server = await startHttpServer(replies);
  servers.push(server);
  return server;
}

/** Runs the CLI in-process with captured output. */
const run = (argv: string[]) => runCli(argv);

/** Runs the built CLI as a child process (asynchronously, so the in-process test server can answer). */
function runBuilt(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["bin/hlbot.js", ...args],
      { cwd: ROOT, timeout: 30_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe("hlbot info (built CLI, end to end)", () => {
  beforeAll(() => {
    // The build emits even when another module has a type error, so its exit status is not ours to judge.
    try {
      execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], {
        cwd: ROOT,
        stdio: "pipe",
      });
    } catch {
      // checked below
    }
    expect(existsSync(`${ROOT}dist/cli/commands/info.js`)).toBe(true);
  }, 180_000);

  it("prints a stake of 123456789012345678901 exactly", async () => {
    const server = await venue([{ json: [{ ...validatorSummary(), stake: 123456789012345678901n }] }]);
    const res = await runBuilt(["info", "validatorSummaries", "--base-url", server.url]);
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('"stake": 123456789012345678901,');
    const printed = parseJson(res.stdout) as Array<{ stake: unknown; stats: unknown[] }>;
    expect(printed[0]!.stake).toBe(123456789012345678901n);
    expect(printed[0]!.stats).toHaveLength(3);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.path).toBe("/info");
    expect(server.requests[0]!.json).toEqual({ type: "validatorSummaries" });
  });

  it("exits 2 for a bad --user and sends no request", async () => {
    const server = await venue([{ json: [] }]);
    const res = await runBuilt(["info", "delegations", "--user", "0x1234", "--base-url", server.url]);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe("");
    expect(res.stderr.trim().split("\n")).toHaveLength(1);
    expect(res.stderr).toContain("--user");
    expect(server.requests).toHaveLength(0);
  });
});

describe("hlbot info (in process)", () => {
  it("--help lists every type with the arguments it needs", async () => {
    const res = await run(["info", "--help"]);
    expect(res.code).toBe(0);
    for (const type of INFO_TYPES) {
      const line = res.stdout.split("\n").find((l) => l.trim().startsWith(`${type} `) || l.trim() === type);
      expect(line, type).toBeDefined();
      for (const p of infoParameters(type)) {
        const flag = FLAG_OF_FIELD[p.name]!;
        expect(line, `${type} ${flag}`).toContain(p.required ? `${flag} ` : `[${flag} `);
      }
    }
  });

  it("its help table matches the registry exactly", () => {
    expect(Object.keys(INFO_HELP).sort()).toEqual([...INFO_TYPES].sort());
    for (const type of INFO_TYPES) {
      const fromRegistry = infoParameters(type).map((p) => ({
        flag: FLAG_OF_FIELD[p.name],
        required: p.required,
      }));
      expect(INFO_HELP[type]!.args, type).toEqual(fromRegistry);
    }
  });

  it("sends the lower-cased user and prints the validated answer", async () => {
    const summary = {
      delegated: "1.5",
      undelegated: "0.0",
      totalPendingWithdrawal: "0.0",
      nPendingWithdrawals: 0,
    };
    const server = await venue([{ json: summary }]);
    const res = await run([
      "info",
      "delegatorSummary",
      "--user",
      USER.toUpperCase().replace("0X", "0x"),
      "--base-url",
      server.url,
    ]);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual(summary);
    expect(res.stdout).toBe(`${JSON.stringify(summary, null, 2)}\n`);
    expect(server.requests[0]!.json).toEqual({ type: "delegatorSummary", user: USER });
  });

  it("prints null for a null answer", async () => {
    const server = await venue([{ json: null }]);
    const res = await run(["info", "subAccounts2", "--user", USER, "--base-url", server.url]);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe("null\n");
  });

  it("posts txDetails to {base}/info and passes --dex through", async () => {
    const tx = {
      type: "txDetails",
      tx: {
        action: { type: "noop" },
        block: 1,
        error: null,
        hash: `0x${"ab".repeat(32)}`,
        time: 1,
        user: USER,
      },
    };
    const server = await venue([{ json: tx }, { json: { BTC: "1.0" } }]);
    expect(
      (await run(["info", "txDetails", "--hash", `0x${"ab".repeat(32)}`, "--base-url", server.url])).code,
    ).toBe(0);
    expect((await run(["info", "allMids", "--dex", "", "--base-url", server.url])).code).toBe(0);
    expect(server.requests.map((r) => [r.path, r.json])).toEqual([
      ["/info", { type: "txDetails", hash: `0x${"ab".repeat(32)}` }],
      ["/info", { type: "allMids", dex: "" }],
    ]);
  });

  it("sends candleSnapshot's nested --req and prints the candles", async () => {
    const candle = { t: 1735689600000, T: 1735693199999, s: "@107", i: "1h", o: "24.8", c: "24.9" };
    const answer = [{ ...candle, h: "25.0", l: "24.7", v: "10.5", n: 3 }];
    const server = await venue([{ json: answer }]);
    const req = { coin: "@107", interval: "1h", startTime: 1735689600000, endTime: 1735693199999 };
    const res = await run(["info", "candleSnapshot", "--req", JSON.stringify(req), "--base-url", server.url]);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual(answer);
    expect(server.requests[0]!.json).toEqual({ type: "candleSnapshot", req });
  });

  it.each([
    ["an unknown type", ["info", "l2book"], "type"],
    ["a missing --user", ["info", "delegations"], "--user: required"],
    ["a short --token-id", ["info", "tokenDetails", "--token-id", "0x12"], "--token-id"],
    ["a flag the type does not take", ["info", "spotMeta", "--user", USER], "--user: not used by spotMeta"],
    ["a bad --network", ["info", "spotMeta", "--network", "devnet"], "--network"],
    ["a bad --timeout", ["info", "spotMeta", "--timeout", "soon"], "--timeout"],
    ["a bad --base-url", ["info", "spotMeta", "--base-url", "ftp://x"], "baseUrl"],
    ["a missing --req", ["info", "candleSnapshot"], "--req: required"],
    [
      "a --req that is not JSON",
      ["info", "candleSnapshot", "--req", "{coin:@107}"],
      "--req: expected a JSON",
    ],
    [
      "a --req with an unknown interval",
      ["info", "candleSnapshot", "--req", '{"coin":"@107","interval":"2m","startTime":0}'],
      "--req.interval",
    ],
  ])("exits 2 on %s, with one line on stderr and no request", async (_name, argv, mention) => {
    const server = await venue([{ json: {} }]);
    const withBase = argv.includes("--base-url") ? argv : [...argv, "--base-url", server.url];
    const res = await run(withBase);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe("");
    expect(res.stderr.trim().split("\n")).toHaveLength(1);
    expect(res.stderr).toContain(mention);
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    ["a 422", { status: 422, text: "Failed to deserialize the JSON body into the target type" }, "HTTP 422"],
    ["a 404", { status: 404, text: "not here" }, "HTTP 404"],
    ["a wrongly typed field", { json: { role: 5 } }, "role"],
    ["a non-JSON answer", { text: "<html>", headers: { "content-type": "text/html" } }, "not JSON"],
  ])("exits 1 on %s with a one-line reason", async (_name, reply, mention) => {
    const server = await venue([reply as Reply]);
    const res = await run(["info", "userRole", "--user", USER, "--base-url", server.url]);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe("");
    expect(res.stderr.trim().split("\n")).toHaveLength(1);
    expect(res.stderr).toContain(mention);
  });
});
