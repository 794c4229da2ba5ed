import type { LocalCache } from '../../infra/local-cache.js';
import type { TradingSettings } from './trading-settings.model.js';

/** The process's cache of trading settings by settings key (`user:<id>` / `agent:<id>`). */
export interface SettingsCache {
  settings: LocalCache<TradingSettings>;
}
