import { toMicro } from '../../money.js';
import type { VenueTrading } from '../../trading/venue-trading.js';
import { SIM_MAX_TRADE } from '../../markets/lmsr.js';
import { executeSimTrade, runSimTrades } from './sim-engine.js';
import { submitSimTrade } from './sim-trade.js';

/** Paper trading on our own LMSR book: fills at once or refuses, nothing rests, no fees. */
export const simVenueTrading: VenueTrading = {
  venue: 'sim',
  capabilities: {
    money: 'paper',
    restingOrders: false,
    cancellable: false,
    orderTypes: ['FAK', 'FOK'],
    maxBuyMicro: toMicro(SIM_MAX_TRADE),
    fees: 'none',
    serviceSignsOrders: false,
  },
  warnings: (req) =>
    req.order_type === 'GTC' || req.order_type === 'GTD'
      ? [`order_type ${req.order_type} has no resting effect on sim: the book fills at once or refuses.`]
      : [],
  submit: submitSimTrade,
  execute: executeSimTrade,
  executeClaimed: runSimTrades,
};
