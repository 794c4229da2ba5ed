import { tradeContext } from './context.js';
import { AppError } from '../../infra/errors.js';
import type { VenueTrade } from './venue-trading.js';

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
