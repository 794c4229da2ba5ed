import type { Deps } from '../../composition/deps.js';
import { VenueHttpError } from '../../infra/http/venue-http-error.js';
import { resolveAndSettle } from '../settlement/resolve-and-settle.js';
import { EXTERNAL_VENUE_IDS, type ExternalVenueId } from '../venues/venue-id.js';
import { closeMarket } from './close-market.js';
import { importedBatches, venueKey } from './imported-batches.js';

export interface ResolutionReport {
  venue: string;
  checked: number;
  closed: number;
  resolved: number;
  /** 50-50 (void) resolutions: left closed for the operator, since sim positions pay 1 or 0. */
  voided: number;
  error: string | null;
}

/**
 * The `check-resolutions` job: imported markets the venue stopped trading are closed here too, and
 * the ones it resolved (polymarket.md §10: final, one winner) are resolved and settled through the
 * same path as an operator's resolution, exactly once however often this runs.
 */
export async function checkResolutions(deps: Deps): Promise<ResolutionReport[]> {
  const reports: ResolutionReport[] = [];
  for (const venueId of EXTERNAL_VENUE_IDS) {
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
          if (st.resolution && st.resolution.outcome !== null) {
            await resolveAndSettle(deps, m._id, st.resolution.outcome);
            report.resolved++;
            continue;
          }
          if (st.resolution) report.voided++;
          if ((st.closed || !st.acceptingOrders || st.resolution) && m.status === 'active') {
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
    await resettleRecent(deps, venueId);
  }
  return reports;
}

/** How far back resolved markets get their settlement job enqueued again. */
const RESETTLE_WINDOW_MS = 2 * 3600_000;

/**
 * A worker that died between resolving a market and enqueueing its settlement would leave it
 * resolved and unpaid, and resolved markets are not checked again. So recently resolved markets
 * have their settlement enqueued on every check: the job id makes it a no-op while the last run is
 * retained, and settlement pays each position once however often it runs.
 */
async function resettleRecent(deps: Deps, venueId: ExternalVenueId): Promise<void> {
  const recent = await deps.models.Market.find(
    {
      importSource: venueId,
      status: 'resolved',
      resolvedAt: { $gte: new Date(deps.clock().getTime() - RESETTLE_WINDOW_MS) },
    },
    { _id: 1 },
  ).lean();
  for (const m of recent) await deps.queues.enqueue('settle-market', { marketId: m._id });
}
