import { AppError } from '../../infra/errors.js';
import type { Models } from '../models.js';
import type { VenueId } from '../venues/venue-id.js';
import { sideHolding } from './thresholds.js';

/** Where a monitor request that names no venue goes when nothing tells it otherwise (today's answer). */
const FALLBACK_VENUE: VenueId = 'polymarket';

type Target = { agentId: string; marketId: string; side: 'yes' | 'no' };

/**
 * The venue a monitor request means when it names none: the official client never sends one
 * (client-contract §7.2), so the venue is read from what the agent has there. `candidates` are the
 * venues that could be meant: one is the answer; several are a 409 naming them (guessing could arm
 * or remove the wrong venue's stop); none keeps the Polymarket default, whose answer is the 404.
 */
function oneVenue(candidates: VenueId[], t: Target, what: string): VenueId {
  const venues = [...new Set(candidates)].sort();
  if (venues.length === 0) return FALLBACK_VENUE;
  if (venues.length === 1) return venues[0]!;
  throw new AppError(
    409,
    'venue_ambiguous',
    `${what} ${t.side.toUpperCase()} of market ${t.marketId} on several venues: ${venues.join(', ')}`,
    `Name the venue: ${venues.map((v) => `?venue=${v}`).join(' or ')}.`,
    { body: { venues } },
  );
}

/** For a new monitor: the venues where the agent holds shares of the side free to sell. */
export async function venueHoldingSide(models: Pick<Models, 'Position'>, t: Target): Promise<VenueId> {
  const open = await models.Position.find({
    agentId: t.agentId,
    marketId: t.marketId,
    status: 'open',
  }).lean();
  const held = open.filter((p) => sideHolding(p, t.side).freeMicro > 0).map((p) => p.venue as VenueId);
  return oneVenue(held, t, 'You hold');
}

/**
 * For a removal: the venues where the side has a monitor the agent can see (listed: watching or
 * exiting). The monitor, not the holding, is what is removed: a side sold by hand keeps its monitor.
 */
export async function venueMonitoringSide(
  models: Pick<Models, 'PositionMonitor'>,
  t: Target,
): Promise<VenueId> {
  const monitors = await models.PositionMonitor.find(
    { agentId: t.agentId, marketId: t.marketId, side: t.side, state: { $in: ['active', 'triggered'] } },
    { venue: 1 },
  ).lean();
  return oneVenue(
    monitors.map((m) => m.venue),
    t,
    'You have monitors on',
  );
}
