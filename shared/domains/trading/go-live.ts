import { realMoneyVenueIds } from '../venues/venue-conventions.js';
import { DEFAULT_VENUE } from '../venues/venue-id.js';
import type { TradeResult } from './trade.schemas.js';

/** Sim-trade counts at which an agent that never traded for real is shown how to go live. */
export const GO_LIVE_MILESTONES = [10, 50, 100, 250];

export function goLiveBlock(
  simTrades: number,
  realTrades: number,
  baseUrl: string,
  claimUrl: string | null,
): TradeResult['go_live'] {
  if (realTrades > 0 || !GO_LIVE_MILESTONES.includes(simTrades)) return undefined;
  const steps: NonNullable<TradeResult['go_live']>['steps'] = [];
  if (claimUrl)
    steps.push({ actor: 'owner', action: 'Claim this agent to enable real trading', url: claimUrl });
  steps.push(
    {
      actor: 'owner',
      action: 'Enable real trading in settings',
      method: 'PATCH',
      url: `${baseUrl}/api/sdk/settings`,
      body: { sdk_real_trading_enabled: true },
    },
    {
      actor: 'agent',
      action: `Trade with venue ${realMoneyVenueIds()
        .map((v) => `"${v}"`)
        .join(' or ')} instead of "${DEFAULT_VENUE}"`,
      method: 'POST',
      url: `${baseUrl}/api/sdk/trade`,
    },
  );
  return {
    reason: `You have made ${simTrades} sim trades. When your strategy is ready, trade with real money on Polymarket or Kalshi.`,
    sim_trades: simTrades,
    steps,
  };
}
