import { createHash } from 'node:crypto';
import type { InfraDeps } from '../../infra/infra-deps.js';
import { AppError } from '../../infra/errors.js';
import type { AgentRecord } from '../agents/agent.model.js';
import { fromMicro } from '../money.js';
import type { Models } from '../models.js';
import { emitToBridges } from '../webhooks/clawdbot-bridge.js';
import type { PositionMonitorRecord } from './position-monitor.model.js';
import { riskAlertId, type RiskAlertRecord } from './risk-alert.model.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type RiskAlertsDeps = Pick<InfraDeps, 'clock' | 'env' | 'queues'> & { models: Models };

/** client-contract §7.1: an alert the client has not acted on lapses after an hour. */
export const RISK_ALERT_TTL_MS = 3600_000;

/**
 * A risk alert for a triggered monitor the service cannot sell (external wallet, Kalshi). Written
 * by the monitor's id and generation, so raising it again (a retried exit) rewrites the same alert,
 * and announced to the owner's chat bridge as `risk.alert` under the same id (delivered once).
 * Registered webhooks do not get it: their event names are the contract's (§7.4).
 */
/** `refused`: the error code of the service's own sell, when it tried and was refused. */
export async function raiseRiskAlert(
  deps: RiskAlertsDeps,
  m: PositionMonitorRecord,
  refused: string | null = null,
) {
  const market = await deps.models.Market.findById(m.marketId, { venueRef: 1 }).lean();
  // Outcome tokens exist where the venue has them (Polymarket); a Kalshi reference has none.
  const ref = market?.venueRef;
  const tokenId = m.side === 'yes' ? ref?.yesTokenId : ref?.noTokenId;
  const now = deps.clock();
  await deps.models.RiskAlert.updateOne(
    { _id: riskAlertId(m.agentId, m.marketId, m.side) },
    {
      $set: {
        agentId: m.agentId,
        marketId: m.marketId,
        venue: m.venue,
        side: m.side,
        sharesMicro: m.exitSharesMicro ?? 0,
        exitReason: m.exitReason ?? 'stop_loss',
        tokenId: tokenId ?? null,
        triggerPrice: m.triggerPrice,
        exitRefused: refused,
        monitorId: m._id,
        generation: m.generation,
        expiresAt: new Date(now.getTime() + RISK_ALERT_TTL_MS),
      },
    },
    { upsert: true },
  );
  await emitToBridges(
    deps,
    [m.agentId],
    {
      type: 'risk.alert',
      // Hashed: a monitor id holds a market id of up to 200 characters, an event id is 200 at most.
      id: `risk.alert.${createHash('sha256').update(`${m._id}.${m.generation}`).digest('hex').slice(0, 32)}`,
      data: {
        agent_id: m.agentId,
        market_id: m.marketId,
        venue: m.venue,
        side: m.side,
        shares: fromMicro(m.exitSharesMicro ?? 0),
        exit_reason: m.exitReason ?? 'stop_loss',
        trigger_price: m.triggerPrice,
        exit_refused: refused,
      },
    },
    now.toISOString(),
  );
}

/** Removes the alert this trigger (monitor and generation) raised, if any: its exit sold after all. */
export async function withdrawRiskAlert(deps: RiskAlertsDeps, m: PositionMonitorRecord) {
  await deps.models.RiskAlert.deleteOne({
    _id: riskAlertId(m.agentId, m.marketId, m.side),
    monitorId: m._id,
    generation: m.generation,
  });
}

/** The shape the client acts on (client-contract §7.1: market_id, side, shares, exit_reason mandatory). */
const alertView = (a: RiskAlertRecord) => ({
  market_id: a.marketId,
  side: a.side,
  shares: fromMicro(a.sharesMicro),
  exit_reason: a.exitReason,
  token_id: a.tokenId,
  venue: a.venue,
  trigger_price: a.triggerPrice,
  exit_refused: a.exitRefused ?? null,
  created_at: a.createdAt.toISOString(),
  expires_at: a.expiresAt.toISOString(),
});

/** The agent's unexpired risk alerts (the TTL index removes lapsed ones within a minute; reads never show them). */
async function liveAlerts(models: Models, agentId: string, now: Date) {
  return (await models.RiskAlert.find({ agentId, expiresAt: { $gt: now } })
    .sort({ createdAt: 1 })
    .lean()) as RiskAlertRecord[];
}

/** `GET /api/sdk/risk-alerts`. */
export async function listRiskAlerts(deps: RiskAlertsDeps, agent: AgentRecord) {
  return { risk_alerts: (await liveAlerts(deps.models, agent._id, deps.clock())).map(alertView) };
}

/** `DELETE /api/sdk/risk-alerts/{market_id}/{side}`: the client has sold (or decided not to). */
export async function deleteRiskAlert(
  deps: RiskAlertsDeps,
  agent: AgentRecord,
  marketId: string,
  side: 'yes' | 'no',
) {
  const { deletedCount } = await deps.models.RiskAlert.deleteOne({
    _id: riskAlertId(agent._id, marketId, side),
  });
  if (!deletedCount)
    throw new AppError(
      404,
      'risk_alert_not_found',
      `No risk alert on ${side.toUpperCase()} of market ${marketId}`,
      'List them with GET /api/sdk/risk-alerts; an alert lapses an hour after it was raised.',
    );
  return { success: true, market_id: marketId, side };
}

/**
 * The briefing's two risk arrays: `triggered_risk_alerts` are the alerts themselves (clients with a
 * local key sell them); `risk_alerts` says each in a sentence. The sentence must not contain "gas",
 * nor "pol" other than in the word polymarket: the official client's preflight reads those as a gas shortage.
 */
export async function briefingRiskAlerts(models: Models, agentId: string, now: Date) {
  const alerts = await liveAlerts(models, agentId, now);
  return {
    triggered_risk_alerts: alerts.map(alertView),
    risk_alerts: alerts.map((a) => ({
      message: `${a.exitReason === 'take_profit' ? 'Take-profit' : 'Stop-loss'} triggered on ${a.side.toUpperCase()} of market ${a.marketId}${a.exitRefused ? ` (the service's own sell was refused: ${a.exitRefused})` : ''}: sell ${fromMicro(a.sharesMicro)} shares, then DELETE /api/sdk/risk-alerts/${a.marketId}/${a.side}.`,
      market_id: a.marketId,
      side: a.side,
      exit_reason: a.exitReason,
    })),
  };
}
