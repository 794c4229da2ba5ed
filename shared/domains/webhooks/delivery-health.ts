import { MAX_CONSECUTIVE_FAILURES } from './webhook.model.js';

/**
 * The failure policy every signed receiver of an agent's events shares (a registered webhook, the
 * settings owner's chat bridge): a 2xx delivery resets the count of consecutive failures; each
 * failure adds one and records why; the failure that reaches MAX_CONSECUTIVE_FAILURES switches the
 * receiver off, and nothing more is sent to it until its owner turns it back on. One guarded update
 * per step, on the receiver's own document (the count and the switch are in the filter).
 */

/** Where a receiver keeps its health: the paths of its fields in its document. */
export interface HealthPaths {
  active: string;
  consecutiveFailures: string;
  lastError: string;
  lastDeliveryAt: string;
}

/** The store of the receiver's documents (a Mongoose model: only these two calls are used). */
interface HealthStore {
  updateOne(filter: object, update: object): PromiseLike<{ matchedCount: number }>;
  findOneAndUpdate(
    filter: object,
    update: object,
    options: { returnDocument: 'after'; projection: Record<string, 1> },
  ): { lean(): PromiseLike<unknown> };
}

export interface Receiver {
  store: HealthStore;
  id: string;
  paths: HealthPaths;
}

/** A receiver is on unless switched off: a document written before it had the switch is on. */
export const isOn = (paths: HealthPaths) => ({ [paths.active]: { $ne: false } });

/** A 2xx delivery: the failure count goes back to 0 and the time is recorded. */
export async function recordDelivered(r: Receiver, at: Date): Promise<void> {
  await r.store.updateOne(
    { _id: r.id },
    { $set: { [r.paths.consecutiveFailures]: 0, [r.paths.lastDeliveryAt]: at, [r.paths.lastError]: null } },
  );
}

/**
 * One failed delivery, counted with its reason: `counted` when the receiver stays on (the delivery
 * is retried), `switched-off` when this failure reached the limit, `inactive` when it was off already
 * (nothing counted).
 */
export async function recordFailure(
  r: Receiver,
  failure: string,
): Promise<'counted' | 'switched-off' | 'inactive'> {
  const counted = (await r.store
    .findOneAndUpdate(
      { _id: r.id, ...isOn(r.paths) },
      { $inc: { [r.paths.consecutiveFailures]: 1 }, $set: { [r.paths.lastError]: failure } },
      { returnDocument: 'after', projection: { [r.paths.consecutiveFailures]: 1 } },
    )
    .lean()) as Record<string, unknown> | null;
  if (!counted) return 'inactive';
  if (Number(counted[r.paths.consecutiveFailures]) < MAX_CONSECUTIVE_FAILURES) return 'counted';
  await r.store.updateOne({ _id: r.id, ...isOn(r.paths) }, { $set: { [r.paths.active]: false } });
  return 'switched-off';
}
