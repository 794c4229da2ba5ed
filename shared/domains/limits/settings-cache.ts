import type { LocalCache } from '../../infra/local-cache.js';
import type { TradingSettings } from './trading-settings.model.js';

/** What the trade guard reads of an agent's automaton; `none` when the agent has none. */
export type CachedAutomaton =
  | { readonly none: true }
  | {
      readonly none: false;
      readonly halted: boolean;
      readonly venue: string;
      readonly budgetMicro: number;
      readonly startedAt: Date;
    };

/**
 * The process's cache of trading settings by settings key (`user:<id>` / `agent:<id>`), and of the
 * agents' automatons (halt and budget) by agent id: the account safeguards every trade is checked
 * against, each dropped at once over the invalidation channel when it changes (`settings`,
 * `automaton`).
 */
export interface SettingsCache {
  settings: LocalCache<TradingSettings>;
  automatons: LocalCache<CachedAutomaton>;
}
