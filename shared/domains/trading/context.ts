import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { VenueRegistry } from '../venues/venue-registry.js';
import type { TradeExecutionContext, TradingVenues } from './venue-trading.js';
import type { SettingsCache } from '../limits/settings-cache.js';
import { publicBaseUrl } from '../../infra/config/env.js';
import { currentSettings } from '../limits/trading-settings.js';
import { isPaused } from '../limits/trading-settings.model.js';
import { TRADING_PAUSED } from '../limits/trade-guard.js';
import { AUTOMATON_HALTED, automatonHalted } from '../limits/automaton-budget.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type ContextDeps = Pick<InfraDeps, 'env' | 'log' | 'queues' | 'metrics' | 'clock'> & {
  models: Models;
  venues: VenueRegistry;
  trading: TradingVenues;
  caches: SettingsCache;
};

export const claimUrlFor = (baseUrl: string) => (code: string) =>
  `${baseUrl}/claim/${encodeURIComponent(code)}`;

export function tradeContext(deps: ContextDeps): TradeExecutionContext {
  const baseUrl = publicBaseUrl(deps.env);
  return {
    deps,
    models: deps.models,
    venues: deps.trading,
    log: deps.log,
    now: deps.clock,
    baseUrl,
    claimUrlFor: claimUrlFor(baseUrl),
    haltedBy: async (t) => {
      const [paused, halted] = await Promise.all([
        // The settings cache is invalidated through pub/sub on every pause, in this process too.
        t.ownerKey ? currentSettings(deps, { key: t.ownerKey }).then(isPaused) : false,
        automatonHalted(deps, t.agentId),
      ]);
      return paused ? TRADING_PAUSED : halted ? AUTOMATON_HALTED : null;
    },
  };
}
