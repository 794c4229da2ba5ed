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
  const filter = { fillId: { $in: fillIds }, withdrawnAt: null };
  const moving = await ReactorSignal.find(filter, { _id: 1 }).lean();
  await ReactorSignal.updateMany(filter, { $set: { withdrawnAt: deps.clock(), live: false } });
  const signals = (await ReactorSignal.find({ fillId: { $in: fillIds } }).lean()) as ReactorSignalRecord[];
  for (const s of signals)
    if (s.action === 'buy' && s.amountMicro > 0)
      await giveBackDailyCap(deps.redis, deps.env.QUEUE_PREFIX, {
        agentId: s.agentId,
        signalId: s.signalId,
        at: s.createdAt,
      });
  const published = await publishOnce(deps, 'withdrawal', signals, new Set(moving.map((s) => s._id)));
  return { signals: signals.length, withdrawn: moving.length, published };
}
