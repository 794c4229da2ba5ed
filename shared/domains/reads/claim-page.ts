import { notFound } from '../../infra/errors.js';
import type { Models } from '../models.js';
import { fromMicro } from '../money.js';
import { boardStanding } from './board-ranks.js';
import { leaderboardEntry } from './leaderboard.js';
import type { AgentRecord } from '../agents/agent.model.js';
import { claimInfoView } from '../agents/agent-views.js';
import { assertClaimCodeLive, claimCodeExpiresAt } from '../agents/claim-code.js';

/** How long an unclaimed code works, and the time now. */
export interface ClaimCodeClock {
  ttlHours: number;
  now: Date;
}

/**
 * `GET /api/sdk/agents/claim/{code}`: what the claim page shows about an agent (never its key); 404
 * for an unknown code, 410 for an unclaimed one past its time.
 */
export async function claimInfo(models: Pick<Models, 'Agent'>, code: string, clock: ClaimCodeClock) {
  return claimView(await liveClaimAgent(models, code, clock), clock);
}

async function liveClaimAgent(models: Pick<Models, 'Agent'>, code: string, clock: ClaimCodeClock) {
  const agent = await models.Agent.findOne({ claimCode: code }).lean();
  if (!agent) {
    throw notFound(
      'Claim code',
      'Check the code: it is the `claim_code` returned when the agent registered (e.g. reef-X4B2Q7-M9KD3T-7HWQ2P).',
    );
  }
  assertClaimCodeLive(agent, clock.ttlHours, clock.now);
  return agent;
}

const claimView = (agent: AgentRecord, clock: ClaimCodeClock) => ({
  ...claimInfoView(agent),
  claim_code_expires_at: agent.claimedBy ? null : claimCodeExpiresAt(agent, clock.ttlHours).toISOString(),
});

/**
 * `GET /claim/{code}`: what the human-readable claim page shows: the claim info of the lookup route
 * plus the agent's sim record (balance, and its leaderboard figures and place).
 */
export async function claimPageData(models: Models, code: string, clock: ClaimCodeClock) {
  const agent = await liveClaimAgent(models, code, clock);
  const { rank } = await boardStanding(models, agent);
  const entry = leaderboardEntry(agent, rank ?? 0);
  return {
    ...claimView(agent, clock),
    record: {
      balance: fromMicro(agent.balanceMicro),
      total_pnl: entry.total_pnl,
      pnl_percent: entry.pnl_percent,
      win_rate: entry.win_rate,
      trades_count: entry.trades_count,
      rank,
    },
  };
}
export type ClaimPageData = Awaited<ReturnType<typeof claimPageData>>;
