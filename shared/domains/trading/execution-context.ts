import type { InfraDeps } from '../../infra/infra-deps.js';
import type { VenueRegistry } from '../venues/venue-registry.js';
import type { SettingsCache } from '../limits/settings-cache.js';
import type { Logger } from '../../infra/logger.js';
import type { Models } from '../models.js';
import type { TradingVenues } from './venue-trading.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type ExecutionContextDeps = Pick<InfraDeps, 'env' | 'log' | 'queues' | 'metrics' | 'clock'> & {
  models: Models;
  venues: VenueRegistry;
  trading: TradingVenues;
  caches: SettingsCache;
};

/** What a worker needs to execute trades, built once per process (context.ts). */
export interface TradeExecutionContext {
  /** For real-venue orders: the venues, the owners' wallets and credentials. */
  deps: ExecutionContextDeps;
  models: Models;
  /** Where each trade goes by its venue: execution, order states and cancels. */
  venues: TradingVenues;
  log: Logger;
  now: () => Date;
  baseUrl: string;
  claimUrlFor: (code: string) => string;
  /** Whether the owner's kill switch is on now (the worker's second look, see executeTrade). */
  ownerPaused: (ownerKey: string) => Promise<boolean>;
}
