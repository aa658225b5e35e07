// Reads answered with a garbled body (not JSON, or not the documented shape) are read once more; an
// explicit error answer from the venue is not.
import { afterEach, describe, expect, it } from "vitest";
import { BadResponseError } from "../../../src/lib/errors.js";
import { InfoClient } from "../../../src/venue/info/client.js";
import { resolveEndpoints } from "../../../src/venue/networks.js";
import { HttpTransport } from "../../../src/venue/transport/http.js";
import { startHttpServer, type TestHttpServer } from "../../helpers/httpServer.js";

const USER = "0x1111111111111111111111111111111111111111";
const GOOD = { delegated: "1.0", undelegated: "0.0", totalPendingWithdrawal: "0.0", nPendingWithdrawals: 0 };

describe("garbled read answers", () => {
  let server: TestHttpServer | undefined;
  let transport: HttpTransport | undefined;
  afterEach(async () => {
    await transport?.close();
    await server?.close();
  });

  function client(url: string, attempts = 3): InfoClient {
    transport = new HttpTransport({
      endpoints: resolveEndpoints("testnet", url),
      retry: { attempts, baseDelayMs: 1, maxDelayMs: 2 },
      budget: null,
    });
    return new InfoClient(transport);
  }

  it("reads once more after a non-JSON body", async () => {
    server = await startHttpServer([
      { text: "<html>502 from a proxy</html>", headers: { "content-type": "text/html" } },
      { json: GOOD },
    ]);
    const summary = await client(server.url).delegatorSummary({ user: USER });
    expect(summary.delegated).toBe("1.0");
    expect(server.requests).toHaveLength(2);
  });

  it("reads once more after a schema-violating body", async () => {
    server = await startHttpServer([{ json: { delegated: 12 } }, { json: GOOD }]);
    const summary = await client(server.url).delegatorSummary({ user: USER });
    expect(summary.delegated).toBe("1.0");
    expect(server.requests).toHaveLength(2);
  });

  it("reports a second garbled answer, with the schema path in the error", async () => {
    server = await startHttpServer([{ json: { delegated: 12 } }]);
    const err = await client(server.url, 4)
      .delegatorSummary({ user: USER })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadResponseError);
    expect((err as Error).message).toMatch(/delegated/);
    expect(server.requests).toHaveLength(2);
  });

  it("does not read again when the venue answers with an explicit error", async () => {
    server = await startHttpServer([{ json: { type: "error", message: "invalid hash" } }]);
    const err = await client(server.url)
      .txDetails({ hash: `0x${"ab".repeat(32)}` })
      .catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/invalid hash/);
    expect(server.requests).toHaveLength(1);
  });
});
