import { publicBaseUrl } from '../../infra/config/env.js';
import type { Deps } from '../../composition/deps.js';
import { currentSettings } from '../limits/trading-settings.js';
import { isPaused } from '../limits/trading-settings.model.js';
import type { TradeExecutionContext } from './execution-context.js';

export const claimUrlFor = (baseUrl: string) => (code: string) =>
  `${baseUrl}/claim/${encodeURIComponent(code)}`;

export function tradeContext(deps: Deps): TradeExecutionContext {
  const baseUrl = publicBaseUrl(deps.env);
  return {
    deps,
    models: deps.models,
    venues: deps.trading,
    log: deps.log,
    now: deps.clock,
    baseUrl,
    claimUrlFor: claimUrlFor(baseUrl),
    // The settings cache is invalidated through pub/sub on every pause, in this process too.
    ownerPaused: async (ownerKey) => isPaused(await currentSettings(deps, { key: ownerKey })),
  };
}
