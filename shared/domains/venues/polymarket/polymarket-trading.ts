import type { Deps } from '../../../composition/deps.js';
import type { ClobTrading } from './orders/clob-trading.js';
import { PolymarketAdapter } from './polymarket-adapter.js';

/** The CLOB's trading calls of this process's Polymarket adapter (one circuit breaker per host). */
export function polymarketTrading(deps: Pick<Deps, 'venues'>): ClobTrading {
  const adapter = deps.venues.get('polymarket');
  if (!(adapter instanceof PolymarketAdapter))
    throw new Error('the polymarket venue is not the CLOB adapter');
  return adapter.trading;
}
