import type { Models } from '../models.js';

/**
 * An agent's positions (on one venue, if given), each with its market; a position whose market is
 * gone is left out.
 */
export async function positionsWithMarkets(models: Models, agentId: string, venue?: string) {
  const filter: Record<string, unknown> = { agentId };
  if (venue) filter.venue = venue;
  const positions = await models.Position.find(filter).lean();
  const markets = await models.Market.find({
    _id: { $in: [...new Set(positions.map((p) => p.marketId))] },
  }).lean();
  const byId = new Map(markets.map((m) => [m._id, m]));
  return positions.filter((p) => byId.has(p.marketId)).map((p) => ({ p, m: byId.get(p.marketId)! }));
}
