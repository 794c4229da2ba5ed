import { AppError } from '../../infra/errors.js';
import type { Models } from '../models.js';
import type { VenueId } from '../venues/venue-id.js';
import { sideHolding } from './thresholds.js';

type Target = { agentId: string; marketId: string; side: 'yes' | 'no' };

/**
 * The venue a monitor request means when it names none: the official client never sends one
 * (client-contract §7.2), so the venue is the position's, read from what the agent has there.
 * `candidates` are the venues that could be meant: one is the answer; several are a 409 naming them
 * (guessing could arm or remove the wrong venue's stop); none is null: on no venue is there anything
 * to watch or remove (the caller's 404), so no venue has to be assumed.
 */
function oneVenue(candidates: VenueId[], t: Target, what: string): VenueId | null {
  const venues = [...new Set(candidates)].sort();
  if (venues.length === 0) return null;
  if (venues.length === 1) return venues[0]!;
  throw new AppError(
    409,
    'venue_ambiguous',
    `${what} ${t.side.toUpperCase()} of market ${t.marketId} on several venues: ${venues.join(', ')}`,
    `Name the venue: ${venues.map((v) => `?venue=${v}`).join(' or ')}.`,
    { body: { venues } },
  );
}

/** For a new monitor: the venue where the agent holds shares of the side free to sell (null: none). */
export async function venueHoldingSide(models: Pick<Models, 'Position'>, t: Target): Promise<VenueId | null> {
  const open = await models.Position.find({
    agentId: t.agentId,
    marketId: t.marketId,
    status: 'open',
  }).lean();
  const held = open.filter((p) => sideHolding(p, t.side).freeMicro > 0).map((p) => p.venue as VenueId);
  return oneVenue(held, t, 'You hold');
}

/**
 * For a removal: the venue where the side has a monitor the agent can see (listed: watching or
 * exiting; null: none). The monitor, not the holding, is what is removed: a side sold by hand keeps
 * its monitor.
 */
export async function venueMonitoringSide(
  models: Pick<Models, 'PositionMonitor'>,
  t: Target,
): Promise<VenueId | null> {
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
