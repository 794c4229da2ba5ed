import { deletePending, listPending, MAX_PENDING, type PendingDeps } from '../reactor/pending-signals.js';
import type { ShockSignalRecord } from './shock-signal.model.js';
import { shockSignalView } from './shock-signal-view.js';

/**
 * The agent's Reactor feed (`GET /api/sdk/reactor/pending`): its copytrade signals and its shock
 * signals side by side, oldest first, at most MAX_PENDING. Each skill keeps the `type` it handles
 * (the copytrading skill `copytrade`, the shock ladder `shock_ladder`) and leaves the others, which
 * expire by themselves.
 */
export async function listFeed(deps: PendingDeps, agentId: string, caps: string | undefined) {
  const now = deps.clock();
  const [copytrade, shocks] = await Promise.all([
    listPending(deps, agentId, caps),
    deps.models.ShockSignal.find({ agentId, expiresAt: { $gt: now } }).lean() as Promise<ShockSignalRecord[]>,
  ]);
  const pending = [...copytrade.reactor_signals, ...shocks.filter((s) => !s.deletedAt).map(shockSignalView)]
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.signal_id.localeCompare(b.signal_id))
    .slice(0, MAX_PENDING);
  return { reactor_signals: pending, count: pending.length };
}

/**
 * `DELETE /api/sdk/reactor/pending/{signal_id}`: a shock signal by its id (the shock's, as the
 * skill deletes it), else a copytrade signal (404 for an id the agent never had).
 */
export async function deleteFromFeed(deps: PendingDeps, agentId: string, signalId: string) {
  const _id = `${agentId}|${signalId}`;
  const shock = await deps.models.ShockSignal.findById(_id, { deletedAt: 1, expiresAt: 1 }).lean();
  if (!shock) return deletePending(deps, agentId, signalId);
  const deleted = !shock.deletedAt && shock.expiresAt > deps.clock();
  if (deleted) await deps.models.ShockSignal.updateOne({ _id }, { $set: { deletedAt: deps.clock() } });
  return { success: true, signal_id: signalId, deleted };
}
