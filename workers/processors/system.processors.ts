import { hostname } from 'node:os';
import { backfillHolders } from '../../shared/domains/wallets/backfill-holders.js';
import { recordHeartbeat } from '../../shared/domains/system/heartbeat.js';
import { reconcileAgentSlots } from '../../shared/domains/users/reconcile-agent-slots.js';
import type { Processor } from '../../shared/composition/processor.js';

export const ping: Processor<'ping'> = async (data) => ({
  pong: data.nonce,
  worker: `${hostname()}:${process.pid}`,
});

export const recordHeartbeatProcessor: Processor<'record-heartbeat'> = async (data, { deps }) => {
  await recordHeartbeat(
    deps.models.Heartbeat,
    'scheduler',
    data.slot,
    new Date(data.scheduledAt),
    deps.clock(),
  );
  return { recorded: data.slot };
};

export const reconcileAgentSlotsProcessor: Processor<'reconcile-agent-slots'> = async (_data, { deps }) =>
  reconcileAgentSlots(deps.models, deps.redis, deps.env.QUEUE_PREFIX);

export const backfillPositionHoldersProcessor: Processor<'backfill-position-holders'> = async (
  _data,
  { deps },
) => backfillHolders(deps);
