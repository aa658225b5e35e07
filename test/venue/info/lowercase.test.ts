// tokenId and hash go out lower-case whatever case they were given in, as the public SDK sends them
// (@nktkas/hyperliquid lower-cases every hex request field). Against a 127.0.0.1 server.
import { afterEach, describe, expect, it } from "vitest";
import { InfoClient } from "../../../src/venue/info/client.js";
import { resolveEndpoints } from "../../../src/venue/networks.js";
import { HttpTransport } from "../../../src/venue/transport/http.js";
import { startHttpServer, type TestHttpServer } from "../../helpers/httpServer.js";

let server: TestHttpServer | undefined;
let transport: HttpTransport | undefined;
afterEach(async () => {
  await transport?.close();
  await server?.close();
});

describe("hex request fields", () => {
  it("sends tokenDetails' tokenId and txDetails' hash lower-case", async () => {
    server = await startHttpServer([{ json: null }]);
    transport = new HttpTransport({ endpoints: resolveEndpoints("testnet", server.url), budget: null });
    const info = new InfoClient(transport);
    const tokenId = "0xABCDEF0123456789ABCDEF0123456789";
    const hash = `0x${"AB".repeat(32)}`;
    await info.tokenDetails({ tokenId }).catch(() => undefined);
    await info.txDetails({ hash }).catch(() => undefined);
    const bodies = server.requests.map((r) => r.json as Record<string, unknown>);
    expect(bodies.find((b) => b.type === "tokenDetails")?.tokenId).toBe(tokenId.toLowerCase());
    expect(bodies.find((b) => b.type === "txDetails")?.hash).toBe(hash.toLowerCase());
  });
});
