import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import { CLAWDBOT_HEALTH_PATHS } from '../limits/trading-settings.model.js';
import { ownerKeyOf } from '../users/settings-owner.js';
import { isOn } from './delivery-health.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type BridgeDeps = Pick<InfraDeps, 'env' | 'queues'> & { models: Models };

/**
 * The chat bridge (client-contract §3.3 `clawdbot_webhook_url`): every event an agent's webhooks get
 * also goes to its settings owner's bridge, with the owner's `chat_id` and `channel` in `data` so the
 * bridge knows where to post it. One job per owner and event (agents sharing an owner post once);
 * the delivery reads the URL again, so a cleared bridge gets nothing more. A bridge switched off
 * after failing MAX_CONSECUTIVE_FAILURES times in a row (delivery-health.ts) gets nothing either.
 */
export async function emitToBridges(
  deps: BridgeDeps,
  agentIds: string[],
  event: { type: string; id: string; data: Record<string, unknown> },
  createdAt: string,
): Promise<number> {
  return emitToBridgesOfMany(deps, [{ agentIds, event }], createdAt);
}

/** `emitToBridges` for many events at once: one read of the agents and one of their owners' bridges. */
export async function emitToBridgesOfMany(
  deps: BridgeDeps,
  items: { agentIds: string[]; event: { type: string; id: string; data: Record<string, unknown> } }[],
  createdAt: string,
): Promise<number> {
  const agentIds = [...new Set(items.flatMap((i) => i.agentIds))];
  if (!agentIds.length) return 0;
  const agents = await deps.models.Agent.find({ _id: { $in: agentIds } }, { claimedBy: 1, status: 1 }).lean();
  const ownerOf = new Map(agents.map((a) => [a._id, ownerKeyOf(a)]));
  const owners = [...new Set(ownerOf.values())];
  if (!owners.length) return 0;
  const bridges = await deps.models.TradingSettings.find(
    { _id: { $in: owners }, clawdbotWebhookUrl: { $type: 'string' }, ...isOn(CLAWDBOT_HEALTH_PATHS) },
    { clawdbotChatId: 1, clawdbotChannel: 1 },
  ).lean();
  if (!bridges.length) return 0;
  const byOwner = new Map(bridges.map((b) => [b._id, b]));
  const deliveries = items.flatMap(({ agentIds: ids, event }) =>
    // One job per owner and event: agents sharing an owner post once.
    [...new Set(ids.map((id) => ownerOf.get(id)))].flatMap((owner) => {
      const b = owner === undefined ? undefined : byOwner.get(owner);
      return b ? [{ b, event }] : [];
    }),
  );
  await Promise.all(
    deliveries.map(({ b, event }) =>
      deps.queues.enqueue(
        'deliver-webhook',
        {
          bridgeOwner: b._id,
          eventId: event.id,
          type: event.type,
          createdAt,
          data: { ...event.data, chat_id: b.clawdbotChatId ?? null, channel: b.clawdbotChannel ?? null },
        },
        { backoff: { type: 'exponential', delay: deps.env.WEBHOOK_RETRY_BASE_MS } },
      ),
    ),
  );
  return deliveries.length;
}
