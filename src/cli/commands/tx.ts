// `hlbot tx HASH`: look up a transaction on the explorer (txDetails).
import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { addNetworkOptions, readNetworkOptions } from "../options.js";

export function register(program: Command, ctx: CliContext): void {
  addNetworkOptions(
    program
      .command("tx")
      .description("look up a transaction by hash (txDetails on the explorer)")
      .argument("<hash>", "transaction hash, 0x followed by 64 hex digits"),
    { botFile: true },
  ).action(
    async (
      hash: string,
      opts: { network?: string; baseUrl?: string; explorerUrl?: string; timeout?: string },
    ) => {
      const { ValidationError } = await import("../../lib/errors.js");
      if (!/^0[xX][0-9a-fA-F]{64}$/.test(hash)) {
        throw new ValidationError([{ path: "hash", message: "expected 0x followed by 64 hex digits" }]);
      }
      // Shaped like a hash, but it is the signing key from the environment: it must not be sent anywhere.
      const { redact } = await import("../../lib/secrets.js");
      if (redact(hash) !== hash) {
        throw new ValidationError([
          { path: "hash", message: "this is the signing key, not a transaction hash; nothing was sent" },
        ]);
      }
      const { botFileVenue } = await import("../bot.js");
      const fromFile = await botFileVenue(ctx, opts);
      const selection = readNetworkOptions(
        { ...opts, ...(fromFile?.baseUrl === undefined ? {} : { baseUrl: fromFile.baseUrl }) },
        fromFile?.network,
      );
      const { createTransport } = await import("../../venue/transport/factory.js");
      const { InfoClient } = await import("../../venue/info/client.js");
      const { stringifyJson } = await import("../../lib/json.js");
      const transport = createTransport({
        network: selection.network,
        baseUrl: selection.baseUrl,
        explorerUrl: opts.explorerUrl ?? fromFile?.explorerUrl,
        timeoutMs: selection.timeoutMs,
      });
      try {
        const details = await new InfoClient(transport).txDetails({ hash });
        ctx.stdout(`${stringifyJson(details, 2)}\n`);
      } finally {
        await transport.close();
      }
    },
  );
}
