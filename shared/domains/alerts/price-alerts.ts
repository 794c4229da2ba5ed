import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { ResolveHost } from '../webhooks/url-guard.js';
import { randomUUID } from 'node:crypto';
import { AppError, notFound } from '../../infra/errors.js';
import type { AgentRecord } from '../agents/agent.model.js';
import { checkedUrl } from '../webhooks/webhooks.js';
import type { AlertCondition, PriceAlertRecord, ThresholdSide } from './price-alert.model.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type PriceAlertsDeps = Pick<InfraDeps, 'env' | 'clock'> & {
  models: Models;
  resolveHost?: ResolveHost;
};

/** Untriggered alerts one agent may hold. */
export const MAX_ACTIVE_ALERTS_PER_AGENT = 100;
/** `GET /api/sdk/alerts/triggered?hours=` at most (client-contract §7.4). */
export const MAX_TRIGGERED_HOURS = 168;

export interface AlertRequest {
  market_id: string;
  side: 'yes' | 'no';
  condition: AlertCondition;
  threshold: number;
  webhook_url?: string | null;
}

/** The price of one side of the market from its YES price. */
export const sidePrice = (yesPrice: number, side: 'yes' | 'no') => (side === 'yes' ? yesPrice : 1 - yesPrice);

/** Where `price` stands against `threshold` (on the threshold counts as above). */
export const sideOf = (price: number, threshold: number): ThresholdSide =>
  price >= threshold ? 'above' : 'below';

/**
 * Whether an alert fires on moving from `from` to `to`: `above`/`below` fire the first time the
 * price is on their side, `crosses_above`/`crosses_below` only on a move from the other side.
 */
export function fires(condition: AlertCondition, from: ThresholdSide, to: ThresholdSide): boolean {
  switch (condition) {
    case 'above':
      return to === 'above';
    case 'below':
      return to === 'below';
    case 'crosses_above':
      return from === 'below' && to === 'above';
    case 'crosses_below':
      return from === 'above' && to === 'below';
  }
}

export const alertView = (a: PriceAlertRecord, question: string | null) => ({
  id: a._id,
  market_id: a.marketId,
  market_question: question,
  side: a.side,
  condition: a.condition,
  threshold: a.threshold,
  webhook_url: a.webhookUrl,
  triggered_at: a.triggeredAt?.toISOString() ?? null,
  triggered_price: a.triggeredPrice,
  created_at: (a as unknown as { createdAt: Date }).createdAt.toISOString(),
});

async function questionsOf(deps: PriceAlertsDeps, alerts: PriceAlertRecord[]) {
  const ids = [...new Set(alerts.map((a) => a.marketId))];
  const markets = await deps.models.Market.find({ _id: { $in: ids } }, { question: 1 }).lean();
  return new Map(markets.map((m) => [m._id as string, m.question]));
}

const viewAll = async (deps: PriceAlertsDeps, alerts: PriceAlertRecord[]) => {
  const questions = await questionsOf(deps, alerts);
  const views = alerts.map((a) => alertView(a, questions.get(a.marketId) ?? null));
  return { alerts: views, count: views.length };
};

export async function createAlert(deps: PriceAlertsDeps, agent: AgentRecord, req: AlertRequest) {
  const { PriceAlert, Market } = deps.models;
  const webhookUrl = req.webhook_url ? await checkedUrl(deps, req.webhook_url, 'webhook_url') : null;
  const market = await Market.findById(req.market_id, {
    question: 1,
    status: 1,
    currentPrice: 1,
    'book.version': 1,
  }).lean();
  if (!market)
    throw notFound('Market', 'Use a market id from GET /api/sdk/markets (or import the market first).');
  if (market.status !== 'active')
    throw new AppError(
      409,
      'market_closed',
      `Market ${req.market_id} is ${market.status}: its price no longer moves`,
      'Set alerts on open markets only (GET /api/sdk/markets?status=active).',
      { retryable: false },
    );
  const active = await PriceAlert.countDocuments({ agentId: agent._id, triggeredAt: null });
  if (active >= MAX_ACTIVE_ALERTS_PER_AGENT)
    throw new AppError(
      409,
      'alert_limit',
      `An agent may hold ${MAX_ACTIVE_ALERTS_PER_AGENT} untriggered alerts`,
      'Delete alerts you no longer need (DELETE /api/sdk/alerts/{id}) first.',
      { retryable: false },
    );
  const created = await PriceAlert.create({
    _id: randomUUID(),
    agentId: agent._id,
    marketId: market._id,
    side: req.side,
    condition: req.condition,
    threshold: req.threshold,
    webhookUrl,
    lastSeq: market.book.version,
    lastSide: sideOf(sidePrice(market.currentPrice, req.side), req.threshold),
  });
  return alertView(created.toObject() as PriceAlertRecord, market.question);
}

export async function listAlerts(deps: PriceAlertsDeps, agent: AgentRecord, includeTriggered: boolean) {
  const alerts = await deps.models.PriceAlert.find({
    agentId: agent._id,
    ...(includeTriggered ? {} : { triggeredAt: null }),
  })
    .sort({ createdAt: -1 })
    .lean();
  return viewAll(deps, alerts as PriceAlertRecord[]);
}

export async function triggeredAlerts(deps: PriceAlertsDeps, agent: AgentRecord, hours: number) {
  const since = new Date(deps.clock().getTime() - hours * 3600_000);
  const alerts = await deps.models.PriceAlert.find({ agentId: agent._id, triggeredAt: { $gte: since } })
    .sort({ triggeredAt: -1 })
    .lean();
  return viewAll(deps, alerts as PriceAlertRecord[]);
}

export async function deleteAlert(deps: PriceAlertsDeps, agent: AgentRecord, id: string) {
  const deleted = await deps.models.PriceAlert.deleteOne({ _id: id, agentId: agent._id });
  if (!deleted.deletedCount)
    throw notFound(
      'Alert',
      'List your alerts (GET /api/sdk/alerts?include_triggered=True) and use one of their ids.',
    );
  return { success: true, id };
}
