import { createHash } from 'node:crypto';
import type { VenueMarketKey, VenuePrint } from '../venue-adapter.js';
import type { PolymarketPublicTrade } from './data-api.schemas.js';

/**
 * A Data API trade row as a print of the market's YES outcome. A trade of the NO token is the
 * opposite trade of YES at the complementary price (buying NO at 0.30 is selling YES at 0.70);
 * which token is NO comes from the key's token ids when it has them, else from `outcomeIndex`.
 */
export function polymarketPrint(t: PolymarketPublicTrade, key: VenueMarketKey): VenuePrint {
  const onNo = key.noTokenId
    ? t.tokenId === key.noTokenId
    : key.yesTokenId
      ? t.tokenId !== key.yesTokenId
      : t.outcomeIndex === 1;
  return {
    id: printId(t),
    timestamp: t.timestamp,
    yesPrice: onNo ? Number((1 - t.price).toFixed(6)) : t.price,
    shares: t.size,
    // What changed hands is the token actually traded, at its own price.
    usd: Number((t.size * t.price).toFixed(6)),
    side: onNo ? (t.side === 'BUY' ? 'SELL' : 'BUY') : t.side,
    transactionHash: t.transactionHash,
    // The Data API gives neither the block nor the log index of a fill.
    blockNumber: null,
    logIndex: null,
    // Rows are read with takerOnly=true: the wallet is the taker's; the makers are not listed.
    maker: null,
    taker: t.wallet,
  };
}

/**
 * The Data API has no trade id. A fill is its transaction, token, wallet, side, size, price and
 * second: the same on every fetch, and apart from another fill of the same transaction unless
 * both are identical in every one of these (then one print stands for both).
 */
function printId(t: PolymarketPublicTrade): string {
  const parts = [t.transactionHash ?? '', t.tokenId, t.wallet, t.side, t.size, t.price, t.timestamp];
  return createHash('sha256').update(parts.join('|')).digest('hex');
}
