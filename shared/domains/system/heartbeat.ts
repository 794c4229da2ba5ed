import type { HeartbeatModel } from './heartbeat.model.js';

/** Idempotent: replaying a slot rewrites the same values. */
export async function recordHeartbeat(
  Heartbeat: HeartbeatModel,
  component: string,
  slot: string,
  scheduledAt: Date,
  now: Date,
) {
  await Heartbeat.updateOne(
    { _id: component },
    { $set: { slot, scheduledAt, processedAt: now } },
    { upsert: true },
  );
}

export async function lastHeartbeat(Heartbeat: HeartbeatModel, component: string) {
  return Heartbeat.findById(component).lean();
}
