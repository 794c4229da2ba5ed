import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import { giveBackDailyCap } from './daily-cap.js';
import { publishOnce } from './publish-signals.js';
import type { ReactorSignalRecord } from './reactor-signal.model.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type WithdrawDeps = Pick<InfraDeps, 'env' | 'redis' | 'clock'> & { models: Models };

/**
 * The `withdraw-fills` job: fills a reorg replaced never settled, so their signals leave every
 * agent's pending list, give their daily cap back, and a `reactor_withdrawn` event follows the
 * `reactor_event` that announced them. Idempotent: a signal is withdrawn, refunded and announced once.
 */
export async function withdrawSignalsOfFills(deps: WithdrawDeps, fillIds: string[]) {
  const { ReactorSignal } = deps.models;
  const before = await ReactorSignal.find({ fillId: { $in: fillIds } }, { withdrawnAt: 1 }).lean();
  // One guarded write per signal (reorgs are rare): the run that withdraws a signal is the one that
  // announces it, so two runs at once (this job, a react job that saw its fill go) announce it once.
  const moved = new Set<string>();
  for (const s of before.filter((b) => !b.withdrawnAt)) {
    const r = await ReactorSignal.updateOne(
      { _id: s._id, withdrawnAt: null },
      { $set: { withdrawnAt: deps.clock(), live: false } },
    );
    if (r.modifiedCount) moved.add(s._id);
  }
  const signals = (await ReactorSignal.find({ fillId: { $in: fillIds } }).lean()) as ReactorSignalRecord[];
  for (const s of signals)
    if (s.action === 'buy' && s.amountMicro > 0)
      await giveBackDailyCap(deps.redis, deps.env.QUEUE_PREFIX, {
        agentId: s.agentId,
        signalId: s.signalId,
        at: s.createdAt,
      });
  const published = await publishOnce(deps, 'withdrawal', signals, moved);
  return { signals: signals.length, withdrawn: moved.size, published };
}
