import { publicBaseUrl } from '../../infra/config/env.js';
import type { Deps } from '../../composition/deps.js';
import type { TradeExecutionContext } from './execute-trade.js';

export const claimUrlFor = (baseUrl: string) => (code: string) =>
  `${baseUrl}/claim/${encodeURIComponent(code)}`;

export function tradeContext(deps: Deps): TradeExecutionContext {
  const baseUrl = publicBaseUrl(deps.env);
  return { models: deps.models, now: deps.clock, baseUrl, claimUrlFor: claimUrlFor(baseUrl) };
}
