import type { VenueRegistry } from '../venue-registry.js';
import type { ClobTrading } from './orders/clob-trading.js';
import { PolymarketAdapter } from './polymarket-adapter.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type PolymarketTradingDeps = { venues: VenueRegistry };

/** The CLOB's trading calls of this process's Polymarket adapter (one circuit breaker per host). */
export function polymarketTrading(deps: Pick<PolymarketTradingDeps, 'venues'>): ClobTrading {
  const adapter = deps.venues.get('polymarket');
  if (!(adapter instanceof PolymarketAdapter))
    throw new Error('the polymarket venue is not the CLOB adapter');
  return adapter.trading;
}
