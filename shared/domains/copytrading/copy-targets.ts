import type { AgentRecord } from '../agents/agent.model.js';
import { importQuota } from '../imports/import-quota.js';
import { importedMarketId } from '../imports/imported-market.js';
import { importOnTheSpot } from '../imports/spot-import.js';
import type { MarketRecord } from '../markets/market.model.js';
import type { VenueTradingDeps } from '../trading/venue-trading.js';
import { agentOwner } from '../users/settings-owner.js';
import type { ExternalVenueId } from '../venues/venue-id.js';
import { chunks } from '../../util/chunks.js';
import type { CopyTarget } from './copy-plan.js';
import type { ConsensusMarket } from './whale-consensus.js';

/**
 * Markets one plan may import into the catalogue: each is a call to the venue, and each takes one
 * of the agent's daily imports (TIER_IMPORTS_PER_DAY), as an import asked for by hand would.
 */
export const MAX_IMPORTS_PER_PLAN = 10;

type Market = Pick<MarketRecord, '_id' | 'question' | 'status' | 'venueRef'>;
const FIELDS = { question: 1, status: 1, venueRef: 1 } as const;

/** The outcome a token is of our market, or null when the token is not one of its two. */
function sideOf(m: Market, tokenId: string): 'yes' | 'no' | null {
  if (m.venueRef?.yesTokenId === tokenId) return 'yes';
  if (m.venueRef?.noTokenId === tokenId) return 'no';
  return null;
}

/**
 * The first `topN` markets of the consensus (by conviction) that can be traded here: each resolved to
 * our market, imported on the spot when the catalogue lacks it (at most MAX_IMPORTS_PER_PLAN, within
 * the agent's daily import quota), open, and within `only` when the agent named markets. What could
 * not be copied is told in `errors`.
 */
export async function copyTargets(
  deps: VenueTradingDeps,
  agent: AgentRecord,
  venue: ExternalVenueId,
  consensus: ConsensusMarket[],
  topN: number,
  only: Set<string> | null,
  errors: string[],
): Promise<CopyTarget[]> {
  const targets: CopyTarget[] = [];
  const importer = spotImporter(deps, agent, venue, errors);
  const candidates = consensus
    .map((c) => ({ c, id: importedMarketId(venue, c.externalId) }))
    .filter(({ id }) => !only || only.has(id));
  for (const batch of chunks(candidates, 100)) {
    const found = await deps.models.Market.find({ _id: { $in: batch.map((x) => x.id) } }, FIELDS).lean();
    const byId = new Map<string, Market>(found.map((m) => [m._id, m]));
    for (const { c, id } of batch) {
      if (targets.length >= topN) return targets;
      const m = byId.get(id) ?? (await importer(c));
      if (!m || m.status !== 'active') continue;
      const side = sideOf(m, c.tokenId);
      if (side) targets.push({ marketId: m._id, title: m.question, side, consensus: c });
    }
  }
  return targets;
}

/** Imports a consensus market missing here, within the plan's bound and the agent's daily quota. */
function spotImporter(deps: VenueTradingDeps, agent: AgentRecord, venue: ExternalVenueId, errors: string[]) {
  let left = MAX_IMPORTS_PER_PLAN;
  const quota = importQuota(deps);
  return async (c: ConsensusMarket): Promise<Market | null> => {
    const name = c.title ?? c.externalId;
    if (left <= 0) {
      errors.push(
        `Not copied: "${name}" is not in the catalogue, and this plan imported ${MAX_IMPORTS_PER_PLAN} markets already (the next run imports more).`,
      );
      return null;
    }
    const now = deps.clock();
    const limit = deps.env.TIER_IMPORTS_PER_DAY[(await agentOwner(deps, agent)).tier];
    if (!(await quota.take(agent._id, limit, now)).ok) {
      left = 0;
      errors.push(
        `Not copied: "${name}" is not in the catalogue and the daily import limit (${limit}) is reached; imports resume at midnight UTC.`,
      );
      return null;
    }
    left--;
    let created = false;
    try {
      const got = await importOnTheSpot(deps, venue, c.externalId);
      if ('refused' in got) {
        errors.push(`Not copied: "${name}" cannot be imported (${got.refused}).`);
        return null;
      }
      created = got.created;
      return await deps.models.Market.findById(got.marketId, FIELDS).lean();
    } finally {
      // Only a market this plan created costs an import (another caller may have created it meanwhile).
      if (!created) await quota.giveBack(agent._id, now).catch(() => undefined);
    }
  };
}
