import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { VenueRegistry } from '../venues/venue-registry.js';
import type { VenueResolution } from '../venues/venue-adapter.js';
import { decided, resolutionPaying, type Resolution } from '../markets/resolution.js';
import { MICRO, toMicro } from '../money.js';
import { VenueHttpError } from '../../infra/http/venue-http-error.js';
import { ensureSettlement, resolveAndSettle } from '../settlement/resolve-and-settle.js';
import { externalVenueIds, type ExternalVenueId } from '../venues/venue-id.js';
import { closeMarket } from './close-market.js';
import { venueKey } from '../markets/venue-key.js';
import { importedBatches } from './imported-batches.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type CheckResolutionsDeps = Pick<InfraDeps, 'log' | 'queues' | 'clock'> & {
  models: Models;
  venues: VenueRegistry;
};

export interface ResolutionReport {
  venue: string;
  checked: number;
  closed: number;
  resolved: number;
  /** Of `resolved`, those where neither side won: 50-50 (void) or scalar, every share paid its part. */
  voided: number;
  error: string | null;
}

/**
 * The `check-resolutions` job: imported markets the venue stopped trading are closed here too, and
 * the ones it resolved (polymarket.md §10: final, one winner or 50-50; kalshi.md §4: yes, no or
 * scalar) are resolved and settled through the same path as an operator's resolution, exactly once
 * however often this runs. A void (50-50) or scalar result resolves the market too, each share
 * paying what the venue pays for it (YES `payoutYes`, NO the rest).
 */
export async function checkResolutions(deps: CheckResolutionsDeps): Promise<ResolutionReport[]> {
  const reports: ResolutionReport[] = [];
  for (const venueId of externalVenueIds()) {
    if (!deps.venues.has(venueId)) continue;
    const venue = deps.venues.get(venueId);
    const report: ResolutionReport = {
      venue: venueId,
      checked: 0,
      closed: 0,
      resolved: 0,
      voided: 0,
      error: null,
    };
    reports.push(report);
    try {
      for await (const batch of importedBatches(deps.models, venueId, ['active', 'closed'])) {
        report.checked += batch.length;
        const statuses = await venue.statuses(batch.map(venueKey));
        for (const m of batch) {
          const st = statuses.get(venueKey(m).externalId);
          if (!st) continue;
          const resolution = st.resolution && venueResolution(st.resolution);
          if (resolution) {
            // One market's conflict (e.g. an operator resolved it the other way) stops only that market.
            const done = await resolveAndSettle(deps, m._id, resolution).then(
              () => true,
              (err: unknown) => {
                deps.log.error({ err, marketId: m._id }, 'venue resolution could not be applied');
                return false;
              },
            );
            if (done) report.resolved++;
            if (done && resolution.outcome === null) report.voided++;
            continue;
          }
          // Closed for good (not a pause of order intake, which a venue lifts again).
          if ((st.closed || st.resolution) && m.status === 'active') {
            if (await closeMarket(deps.models, m._id, deps.clock)) report.closed++;
          }
        }
      }
    } catch (err) {
      if (!(err instanceof VenueHttpError)) throw err;
      report.error = err.message;
      deps.log.warn(
        { venue: venueId, kind: err.kind, err: err.message },
        'resolution check failed; will retry',
      );
    }
    await resettleUnsettled(deps, venueId);
  }
  return reports;
}

/**
 * The venue's result as what each share pays, or null when no share can be paid from it (a payout
 * outside 0..1 from a malformed answer: the market is left closed).
 */
function venueResolution(r: VenueResolution): Resolution | null {
  if (r.outcome !== null) return decided(r.outcome);
  const micro = toMicro(r.payoutYes);
  return Number.isFinite(r.payoutYes) && micro >= 0 && micro <= MICRO ? resolutionPaying(micro) : null;
}

/**
 * A worker that died between resolving a market and enqueueing its settlement would leave it
 * resolved and unpaid, and resolved markets are not checked again. So resolved markets not yet
 * settled (`settledAt` unset) get their settlement enqueued on every check, and a settlement that
 * failed for good is retried: settlement pays each position once however often it runs.
 */
async function resettleUnsettled(deps: CheckResolutionsDeps, venueId: ExternalVenueId): Promise<void> {
  const unsettled = await deps.models.Market.find(
    // Only markets settlement can pay (a resolution with neither an outcome nor a payout would fail every time).
    {
      importSource: venueId,
      status: 'resolved',
      settledAt: null,
      $or: [{ outcome: { $ne: null } }, { payoutYesMicro: { $ne: null } }],
    },
    { _id: 1 },
  )
    .limit(500)
    .lean();
  for (const m of unsettled) await ensureSettlement(deps, m._id);
}
