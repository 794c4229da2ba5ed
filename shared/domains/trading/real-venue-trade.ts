import { admitTrade, checkStanding, guardedTrade, loadGuard, releaseTrade } from '../limits/trade-guard.js';
import type { ExternalVenueId } from '../venues/venue-id.js';
import { tradeContext } from './context.js';
import { AppError } from '../../infra/errors.js';
import { NO_MARKET, refusedResult } from './trade-result.js';
import type { TradeResult } from './trade.schemas.js';
import type { VenueTrade } from './venue-trade.js';

/** Real trading belongs to claimed agents: the others get a 403 with the page where their human claims them. */
export function requireClaimed({ deps, agent }: Pick<VenueTrade, 'deps' | 'agent'>): void {
  if (agent.claimedBy) return;
  throw new AppError(
    403,
    'agent_not_claimed',
    'Agent must be claimed before trading',
    'Ask your human to claim this agent at claim_url, or trade on venue "sim" meanwhile.',
    { body: { claim_url: tradeContext(deps).claimUrlFor(agent.claimCode) } },
  );
}

/**
 * A trade on a real venue: unclaimed agents are refused (403 with claim_url); the account safeguards
 * answer next, so a refused trade says why; then the venue, which this server does not trade on yet.
 * Nothing is placed, so what the admission counted is given back at once.
 */
export async function refuseRealVenueTrade(
  { deps, agent, req, shape, holdings }: VenueTrade,
  venue: ExternalVenueId,
): Promise<TradeResult> {
  requireClaimed({ deps, agent });
  if (!req.dry_run) {
    const guard = await loadGuard(deps, agent);
    const guarded = guardedTrade(shape, venue);
    const standing = checkStanding(guard, guarded);
    if (standing) return refusedResult(shape, NO_MARKET, standing, holdings, false);
    const admission = await admitTrade(deps, guard, agent._id, guarded);
    if (admission) await releaseTrade(deps, admission, { agentId: agent._id, ...guarded });
  }
  return refusedResult(
    shape,
    NO_MARKET,
    {
      error: `Real trading on ${venue} is not available on this server yet.`,
      errorCode: 'venue_unavailable',
      retryable: false,
      hint: 'Trade on venue "sim".',
      category: 'venue',
    },
    holdings,
    req.dry_run,
  );
}
