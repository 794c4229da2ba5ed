import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import { AppError } from '../../infra/errors.js';
import { SIGNAL_JOURNAL_SECONDS, type ReactorSignalRecord } from './reactor-signal.model.js';
import { eventView, pendingView } from './signal-view.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type PendingDeps = Pick<InfraDeps, 'clock'> & { models: Models };

/** Most signals one poll answers (the oldest first): a skill acts on them and deletes them. */
export const MAX_PENDING = 200;

/** What the client announced it handles (`caps=maker`, a comma list). */
export const handlesMakerLegs = (caps: string | undefined) =>
  (caps ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .includes('maker');

const byCreation = (a: ReactorSignalRecord, b: ReactorSignalRecord) =>
  a.createdAt.getTime() - b.createdAt.getTime() || a._id.localeCompare(b._id);

/**
 * `GET /api/sdk/reactor/pending?caps=maker`: the agent's trade-ready signals, oldest first: not
 * expired, deleted nor withdrawn; a maker leg's only for a client that announced `caps=maker`.
 * Signals found expired are marked so (no longer live) on the way.
 */
export async function listPending(deps: PendingDeps, agentId: string, caps: string | undefined) {
  const now = deps.clock();
  const live = (await deps.models.ReactorSignal.find({
    agentId,
    live: true,
  }).lean()) as ReactorSignalRecord[];
  const expired = live.filter((s) => s.expiresAt <= now).map((s) => s._id);
  if (expired.length)
    await deps.models.ReactorSignal.updateMany({ _id: { $in: expired } }, { $set: { live: false } });
  const maker = handlesMakerLegs(caps);
  const pending = live
    .filter((s) => s.expiresAt > now && (maker || s.leg === 'taker'))
    .sort(byCreation)
    .slice(0, MAX_PENDING);
  return { reactor_signals: pending.map(pendingView), count: pending.length };
}

/**
 * `DELETE /api/sdk/reactor/pending/{signal_id}`: the skill acted on the signal. Deleting again, or
 * a signal that expired or was withdrawn meanwhile, answers `deleted: false`; an id the agent never
 * had answers 404.
 */
export async function deletePending(deps: PendingDeps, agentId: string, signalId: string) {
  const _id = `${agentId}|${signalId}`;
  // Read, then written by id alone (served by the `_id` index on every database): two deletes at
  // once may both answer `deleted: true`, which changes nothing for the skill.
  const signal = await deps.models.ReactorSignal.findById(_id, { deletedAt: 1 }).lean();
  if (signal && !signal.deletedAt) {
    await deps.models.ReactorSignal.updateOne({ _id }, { $set: { deletedAt: deps.clock(), live: false } });
    return { success: true, signal_id: signalId, deleted: true };
  }
  if (signal) return { success: true, signal_id: signalId, deleted: false };
  throw new AppError(
    404,
    'not_found',
    `Reactor signal ${signalId} not found`,
    'Delete a signal by the signal_id GET /api/sdk/reactor/pending?caps=maker answers (a maker leg’s is longer than its tx_hash); signals are kept 24 hours.',
  );
}

/**
 * `GET /api/sdk/reactor/events?limit`: the agent's latest whale events of the last 24 hours, in the
 * order the stream sent them (oldest first, as the MCP client buffers them); withdrawn ones left
 * out, a maker leg's only with `caps=maker`.
 */
export async function recentEvents(
  deps: PendingDeps,
  agentId: string,
  limit: number,
  caps: string | undefined,
) {
  const since = new Date(deps.clock().getTime() - SIGNAL_JOURNAL_SECONDS * 1000);
  const rows = (await deps.models.ReactorSignal.find({
    agentId,
    createdAt: { $gte: since },
    withdrawnAt: null,
    ...(handlesMakerLegs(caps) ? {} : { leg: 'taker' }),
  })
    .sort({ createdAt: -1, _id: -1 })
    .limit(limit)
    .lean()) as ReactorSignalRecord[];
  return { events: rows.reverse().map(eventView), count: rows.length };
}
