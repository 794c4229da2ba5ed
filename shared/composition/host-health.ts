import { venueHealth } from '../domains/venues/venue-health.js';
import type { Deps } from './deps.js';

/**
 * What the operator's venue views show (GET /api/admin/venues, the console's Venues page): every
 * venue's hosts, then the candle source's (`binance`), which is no venue but an outside host whose
 * outage the operator needs to see just the same.
 */
export function outsideHostHealth(deps: Pick<Deps, 'venues' | 'env' | 'candles'>) {
  const health = venueHealth(deps);
  const { venue, ...host } = deps.candles.health();
  return { ...health, venues: [...health.venues, { venue, hosts: [host] }] };
}
