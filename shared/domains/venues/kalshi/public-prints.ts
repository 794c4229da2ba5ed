import type { VenuePrint } from '../venue-adapter.js';
import type { KalshiTrade } from './kalshi.schemas.js';

/**
 * A Kalshi trade as a print of YES: a YES taker bought YES at `yes_price`; a NO taker bought NO at
 * `no_price`, which is selling YES at `yes_price`. What changed hands is the taker's own side's
 * price per contract. Kalshi publishes no parties and settles off chain.
 */
export function kalshiPrint(t: KalshiTrade): VenuePrint {
  const takerPrice = t.takerSide === 'yes' ? t.yesPrice : t.noPrice;
  return {
    id: t.tradeId,
    timestamp: t.createdSec,
    yesPrice: t.yesPrice,
    shares: t.count,
    usd: Number((t.count * takerPrice).toFixed(6)),
    side: t.takerSide === 'yes' ? 'BUY' : 'SELL',
    transactionHash: null,
    blockNumber: null,
    logIndex: null,
    maker: null,
    taker: null,
  };
}
