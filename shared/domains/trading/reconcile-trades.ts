import type { Deps } from '../../infra/deps.js';
import { releaseTrade } from '../limits/trade-guard.js';

/** A trade untouched this long while pending or executing has lost its job or the job gave up. */
const STALE_MS = 5 * 60_000;
/** After this many resumes (one per run, at most every STALE_MS) the trade is left to an operator. */
export const MAX_RESUMES = 6;
const BATCH = 200;
const STILL_QUEUED = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

/**
 * Finds trades stuck `pending` or `executing` and settles them, so that no reservation is left
 * hanging: a trade whose job failed for good (retries exhausted, e.g. MongoDB away for longer than
 * the backoff) or vanished is run again (execution is idempotent and resumes where it stopped); a
 * `pending` trade that never reached the queue (the API died between recording and enqueueing) is
 * marked failed and its limits given back, as the API would have done.
 */
export async function reconcileTrades(deps: Deps, now: Date) {
  const { Trade } = deps.models;
  const stale = await Trade.find(
    { status: { $in: ['pending', 'executing'] }, updatedAt: { $lt: new Date(now.getTime() - STALE_MS) } },
    { status: 1, resumeCount: 1, admission: 1, agentId: 1, venue: 1, marketId: 1, side: 1 },
  )
    .sort({ updatedAt: 1 })
    .limit(BATCH)
    .lean();
  const counts = { stale: stale.length, resumed: 0, abandoned: 0, needsOperator: 0 };
  for (const t of stale) {
    const job = await deps.queues.findJob('execute-trade', { tradeId: t._id });
    const state = job ? await job.getState() : 'missing';
    if (STILL_QUEUED.has(state)) continue;

    if (t.status === 'pending' && state === 'missing') {
      const stopped = await Trade.updateOne(
        { _id: t._id, status: 'pending' },
        {
          $set: {
            status: 'failed',
            failureCategory: 'internal',
            failureReason: 'The trade never reached the queue; nothing was executed.',
            finishedAt: now,
          },
        },
      );
      if (stopped.modifiedCount && t.admission)
        await releaseTrade(deps, t.admission, {
          agentId: t.agentId,
          venue: t.venue,
          marketId: t.marketId,
          side: t.side,
        });
      counts.abandoned += stopped.modifiedCount;
      continue;
    }
    if ((t.resumeCount ?? 0) >= MAX_RESUMES) {
      deps.log.error(
        { tradeId: t._id, state },
        'trade still unfinished after resumes: retry it in /admin/queues',
      );
      counts.needsOperator++;
      continue;
    }
    // Counting the resume also moves updatedAt, so the next look comes STALE_MS later.
    await Trade.updateOne(
      { _id: t._id, status: { $in: ['pending', 'executing'] } },
      { $inc: { resumeCount: 1 } },
    );
    if (job && state === 'failed') await job.retry('failed');
    else {
      await job?.remove(); // a completed job that left its trade unfinished: run it afresh
      await deps.queues.enqueue('execute-trade', { tradeId: t._id });
    }
    counts.resumed++;
  }
  return counts;
}
