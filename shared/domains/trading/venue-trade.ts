import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { VenueRegistry } from '../venues/venue-registry.js';
import type { TradingVenues } from './venue-trading.js';
import type { MarketCache } from '../markets/market-cache.js';
import type { SettingsCache } from '../limits/settings-cache.js';
import type { TierCache } from '../limits/tier-cache.js';
import type { AgentRecord } from '../agents/agent.model.js';
import type { Admission } from './trade.model.js';
import type { Holdings, TradeShape } from './trade-result.js';
import type { TradeRequest } from './trade.schemas.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type VenueTradeDeps = Pick<
  InfraDeps,
  'env' | 'log' | 'redis' | 'queues' | 'metrics' | 'invalidation' | 'clock'
> & {
  models: Models;
  venues: VenueRegistry;
  trading: TradingVenues;
  caches: MarketCache & SettingsCache & TierCache;
};

/** A validated trade request on its way to a venue. */
export interface VenueTrade {
  deps: VenueTradeDeps;
  agent: AgentRecord;
  req: TradeRequest;
  /** With the venue normalised and every warning so far. */
  shape: TradeShape;
  /** The agent's balance as the request found it; shares are read where the venue needs them. */
  holdings: Holdings;
  /**
   * The buy's safeguards already passed and counted by the caller (an atomic batch admits all its
   * legs before any runs: batch-trades.ts); the trade then carries this admission instead of
   * taking another. Absent: the trade is admitted on its own.
   */
  admitted?: Admission | null;
}
