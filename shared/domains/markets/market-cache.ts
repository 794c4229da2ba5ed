import type { LocalCache } from '../../infra/local-cache.js';
import type { MarketRecord } from './market.model.js';

/**
 * The process's cache of markets by id, for the trade path's checks before queueing (existence and
 * tradeability, fixed when a market is created). Their prices are not current: the worker decides
 * every fill on the book itself, and an answer that shows a price reads the market again.
 */
export interface MarketCache {
  markets: LocalCache<MarketRecord>;
}
