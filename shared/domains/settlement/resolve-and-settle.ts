import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import { resolveMarket } from '../markets/resolve-market.js';
import type { Resolution } from '../markets/resolution.js';
import { fromMicro } from '../money.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type ResolveAndSettleDeps = Pick<InfraDeps, 'queues' | 'clock'> & { models: Models };

/** How settlement went: paid before the wait ended, or still queued (it runs on its own). */
export type SettlementState =
  | { state: 'completed'; positions: number; payout: number; job_id: string }
  | { state: 'queued'; job_id: string };

/**
 * Resolves a market (once: resolve-market.ts) as decided or void (resolution.ts) and has it settled by the `settle-market` job, which
 * pays each position once however often it runs. With `waitMs` the caller waits that long for the
 * payout (the operator's resolve call); without, it only enqueues (the resolution job).
 */
export async function resolveAndSettle(
  deps: Pick<ResolveAndSettleDeps, 'models' | 'queues' | 'clock'>,
  marketId: string,
  resolution: Resolution,
  opts: { waitMs?: number } = {},
): Promise<Awaited<ReturnType<typeof resolveMarket>> & { settlement: SettlementState }> {
  const resolved = await resolveMarket(deps.models, marketId, resolution, deps.clock);
  if (!opts.waitMs) {
    const job = await deps.queues.enqueue('settle-market', { marketId });
    return { ...resolved, settlement: { state: 'queued', job_id: job.id as string } };
  }
  const settled = await deps.queues.enqueueAndWait<{ positions: number; payoutMicro: number }>(
    'settle-market',
    { marketId },
    opts.waitMs,
  );
  const settlement: SettlementState =
    settled.state === 'completed'
      ? {
          state: 'completed',
          positions: settled.result.positions,
          payout: fromMicro(settled.result.payoutMicro),
          job_id: settled.jobId,
        }
      : { state: 'queued', job_id: settled.jobId };
  return { ...resolved, settlement };
}

/**
 * Enqueues the market's settlement unless a run is already queued or kept; one that failed for good
 * (all its retries spent) is retried. Safe to call as often as wanted.
 */
export async function ensureSettlement(
  deps: Pick<ResolveAndSettleDeps, 'queues'>,
  marketId: string,
): Promise<void> {
  const job = await deps.queues.enqueue('settle-market', { marketId });
  if (await job.isFailed()) await job.retry('failed');
}
