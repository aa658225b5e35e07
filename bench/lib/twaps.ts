// Places the running TWAPs of the large scenario: sell TWAPs on tokens 2…11, each worth about 6,000
// USDC over 4 hours (above the 10-USDC minimum slice value), signed by the account's own key and POSTed
// to the simulator's /exchange like any client would.
import { buildTwapOrder } from "../../src/venue/exchange/actions/twapOrder.js";
import { type Signer, signL1Action } from "../../src/venue/signing/index.js";
import { LARGE, pairIndex } from "./scenario.js";

export type Post = (body: Record<string, unknown>) => Promise<unknown> | unknown;

/** Places LARGE.twaps TWAPs; `mids` are the simulator's allMids; nonces start at `now`. */
export async function placeTwaps(
  post: Post,
  signer: Signer,
  mids: Record<string, string>,
  now: number,
): Promise<void> {
  for (let k = 0; k < LARGE.twaps; k++) {
    const i = 2 + k;
    const px = Number(mids[`@${pairIndex(i)}`]);
    if (!(px > 0)) throw new Error(`no mid for @${pairIndex(i)}`);
    const action = buildTwapOrder({
      asset: 10_000 + pairIndex(i),
      isBuy: false,
      size: (6_000 / px).toFixed(8),
      szDecimals: i % 5,
      minutes: 240,
    }) as unknown as Record<string, unknown>;
    const nonce = now + k;
    const signature = await signL1Action(signer, { action, nonce, network: "testnet" });
    const answer = (await post({ action, nonce, signature })) as {
      status?: string;
      response?: { data?: { status?: { running?: unknown; error?: string } } };
    };
    if (answer?.status !== "ok" || !answer.response?.data?.status?.running) {
      throw new Error(`placing bench TWAP ${k} failed: ${JSON.stringify(answer)}`);
    }
  }
}
