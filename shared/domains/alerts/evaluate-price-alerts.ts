import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import { emitWebhookEvent } from '../webhooks/webhooks.js';
import type { PriceAlertRecord, ThresholdSide } from './price-alert.model.js';
import { fires, sideOf, sidePrice } from './price-alerts.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type EvaluatePriceAlertsDeps = Pick<InfraDeps, 'env' | 'queues' | 'clock'> & { models: Models };

/** Market events read per round; a longer backlog is walked over several rounds. */
const EVENTS_PER_ROUND = 1000;
/** Rounds per job: each re-reads the alerts another evaluation moved on first, or a backlog's next page. */
const MAX_ROUNDS = 10;

type PriceEvent = { seq: number; kind: string; priceAfter: number | null; at: Date };

interface Walked {
  lastSeq: number;
  lastSide: ThresholdSide;
  fired: { event: PriceEvent; price: number } | null;
}

/**
 * Walks an alert over the market's price events after its `lastSeq`, in order. The firing event is
 * a function of the log alone (the side before each event is the side after the one before), so
 * any two evaluations that see it agree on it, however their reads were split.
 */
function walk(a: PriceAlertRecord, events: PriceEvent[]): Walked | null {
  let side = a.lastSide;
  let lastSeq = a.lastSeq;
  for (const e of events) {
    if (e.seq <= a.lastSeq) continue;
    lastSeq = e.seq;
    if (e.priceAfter === null || (e.kind !== 'fill' && e.kind !== 'anchor')) continue;
    const price = sidePrice(e.priceAfter, a.side);
    const next = sideOf(price, a.threshold);
    if (fires(a.condition, side, next)) return { lastSeq, lastSide: next, fired: { event: e, price } };
    side = next;
  }
  return lastSeq === a.lastSeq ? null : { lastSeq, lastSide: side, fired: null };
}

/** The alert's `price.movement` event: its id is the alert's (an alert fires once), so re-emitting queues nothing. */
async function announce(
  deps: EvaluatePriceAlertsDeps,
  a: PriceAlertRecord,
  fired: NonNullable<Walked['fired']>,
) {
  const event = {
    type: 'price.movement' as const,
    id: `price.movement.alert-${a._id}`,
    data: {
      alert_id: a._id,
      agent_id: a.agentId,
      market_id: a.marketId,
      side: a.side,
      condition: a.condition,
      threshold: a.threshold,
      price: fired.price,
      triggered_at: fired.event.at.toISOString(),
    },
  };
  await emitWebhookEvent(deps, [a.agentId], event);
  if (a.webhookUrl)
    await deps.queues.enqueue(
      'deliver-webhook',
      {
        alertId: a._id,
        eventId: event.id,
        type: event.type,
        createdAt: deps.clock().toISOString(),
        data: event.data,
      },
      { backoff: { type: 'exponential', delay: deps.env.WEBHOOK_RETRY_BASE_MS } },
    );
}

/**
 * The `evaluate-price-alerts` job: the market's untriggered alerts walked over its price events
 * (fills and re-anchors) since each one's `lastSeq`. A firing is announced first (idempotent: the
 * event id is the alert's) and then recorded with one guarded update (`{_id, lastSeq,
 * triggeredAt: null}`): an evaluation that loses the race re-reads the alert, so an alert fires once
 * however many evaluations overlap, and a worker dying in between announces the same event again.
 */
export async function evaluatePriceAlerts(deps: EvaluatePriceAlertsDeps, marketId: string) {
  const { PriceAlert, MarketEvent } = deps.models;
  const fired: string[] = [];
  let evaluated = 0;
  let alerts = (await PriceAlert.find({ marketId, triggeredAt: null }).lean()) as PriceAlertRecord[];
  for (let round = 0; round < MAX_ROUNDS && alerts.length; round++) {
    const from = Math.min(...alerts.map((a) => a.lastSeq));
    const events = (await MarketEvent.find(
      { marketId, seq: { $gt: from } },
      { seq: 1, kind: 1, priceAfter: 1, at: 1 },
    )
      .sort({ seq: 1 })
      .limit(EVENTS_PER_ROUND)
      .lean()) as PriceEvent[];
    const again: string[] = [];
    for (const a of alerts) {
      const w = walk(a, events);
      if (!w) continue;
      evaluated++;
      if (w.fired) await announce(deps, a, w.fired);
      const moved = await PriceAlert.updateOne(
        { _id: a._id, lastSeq: a.lastSeq, triggeredAt: null },
        {
          $set: {
            lastSeq: w.lastSeq,
            lastSide: w.lastSide,
            ...(w.fired ? { triggeredAt: w.fired.event.at, triggeredPrice: w.fired.price } : {}),
          },
        },
      );
      if (!moved.matchedCount) again.push(a._id);
      else if (w.fired) fired.push(a._id);
      else if (events.length === EVENTS_PER_ROUND) again.push(a._id);
    }
    alerts = again.length
      ? ((await PriceAlert.find({ _id: { $in: again }, triggeredAt: null }).lean()) as PriceAlertRecord[])
      : [];
  }
  return { market_id: marketId, evaluated, fired };
}

/** Enqueues the evaluation of a market's alerts after a recorded price change (`cause` names it). */
export const enqueueAlertEvaluation = (
  deps: Pick<EvaluatePriceAlertsDeps, 'queues'>,
  marketId: string,
  cause: string,
) => deps.queues.enqueue('evaluate-price-alerts', { marketId, cause });
