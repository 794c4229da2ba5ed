import type { VenueTradingDeps } from '../trading/venue-trading.js';
import { createHash } from 'node:crypto';
import { afterWrite } from '../../infra/faults.js';
import type { AgentRecord } from '../agents/agent.model.js';
import { agentOwner } from '../users/settings-owner.js';
import { fromMicro } from '../money.js';
import { submitTrade } from '../trading/submit-trade.js';
import { FINAL_TRADE_STATUSES } from '../trading/trade.model.js';
import { TradeRequestSchema, type TradeResult } from '../trading/trade.schemas.js';
import { backfillHolder } from '../wallets/backfill-holders.js';
import { isHolder } from '../positions/holder.js';
import { positionId } from '../positions/position.model.js';
import { walletOf } from '../wallets/managed-wallet.js';
import type { PositionMonitorRecord } from './position-monitor.model.js';
import { raiseRiskAlert, withdrawRiskAlert } from './risk-alerts.js';
import { isPoolVenue } from '../venues/venue-id.js';

/** The `source` of the sells monitors place: visible in GET /api/sdk/trades and the webhooks. */
export const RISK_MONITOR_SOURCE = 'risk-monitor';

/**
 * The exit's idempotency key: one per trigger (monitor and generation), so every attempt of one exit
 * is the same request to the trade pipeline, which places it at most once.
 */
export const exitKey = (m: Pick<PositionMonitorRecord, '_id' | 'generation'>) =>
  `risk-monitor-${createHash('sha256').update(m._id).digest('hex').slice(0, 32)}-${m.generation}`;

/**
 * Whether the service can sell this position itself: sim always; Polymarket when it signs for the
 * wallet holding the position (the agent's own wallet, or the account's managed one), and the sale
 * goes from that wallet (the trade pipeline routes a sale to its holder: holding-wallet.ts). A
 * position held in an external wallet, or Kalshi (always the agent's own Solana wallet), gets a
 * risk alert for its client to act on. A position whose holder is not known yet is judged by the
 * account's wallet, as before holders were recorded.
 */
async function sellsItself(deps: VenueTradingDeps, m: PositionMonitorRecord, agent: AgentRecord | null) {
  if (isPoolVenue(m.venue)) return true;
  if (!deps.trading.get(m.venue).capabilities.serviceSignsOrders || !agent) return false;
  const [position, own, account] = await Promise.all([
    deps.models.Position.findById(positionId(m.agentId, m.marketId, m.venue)).lean(),
    deps.models.AgentWallet.findById(m.agentId, { address: 1 }).lean(),
    agentOwner(deps, agent).then((owner) => walletOf(deps, owner)),
  ]);
  const holder = position && (position.holderAddress ?? (await backfillHolder(deps, position)));
  if (!holder) return account?.ownership === 'managed';
  const heldBy = (address: string | undefined) => !!address && isHolder(position, address);
  if (heldBy(own?.address)) return true;
  return account?.ownership === 'managed' && heldBy(account.address);
}

type Finish = Pick<PositionMonitorRecord, 'exitOutcome' | 'exitTradeId' | 'exitError'>;

/** The exit's outcome, recorded once: guarded on the trigger it belongs to. */
async function finish(deps: VenueTradingDeps, m: PositionMonitorRecord, outcome: Finish) {
  const done = await deps.models.PositionMonitor.updateOne(
    { _id: m._id, state: 'triggered', generation: m.generation },
    { $set: { state: 'done', ...outcome } },
  );
  afterWrite(done.modifiedCount > 0);
}

/**
 * The sell of a triggered monitor through the normal pipeline (every safeguard applies). A trade
 * this exit already recorded (found by its key) is followed rather than placed again, so the exit
 * stays single even after the idempotency claim in Redis has lapsed.
 */
async function sell(
  deps: VenueTradingDeps,
  m: PositionMonitorRecord,
  agent: AgentRecord | null,
): Promise<TradeResult | 'pending'> {
  const key = exitKey(m);
  // The newest trade under the key; one stopped before it ran (the queue was down) placed nothing,
  // and the sell is sent again under the same key, as the trade pipeline allows.
  const placed = await deps.models.Trade.findOne(
    {
      agentId: m.agentId,
      marketId: m.marketId,
      idempotencyKey: key,
      $nor: [{ status: 'failed', result: null }],
    },
    { status: 1, result: 1 },
  )
    .sort({ createdAt: -1 })
    .lean();
  if (placed)
    return FINAL_TRADE_STATUSES.includes(placed.status) && placed.result
      ? (placed.result as TradeResult)
      : 'pending';
  if (!agent) throw new Error(`agent ${m.agentId} of monitor ${m._id} not found`);
  const label = m.exitReason === 'take_profit' ? 'Take-profit' : 'Stop-loss';
  const result = await submitTrade(
    deps,
    agent,
    TradeRequestSchema.parse({
      market_id: m.marketId,
      side: m.side,
      action: 'sell',
      shares: fromMicro(m.exitSharesMicro ?? 0),
      venue: m.venue,
      // A real-venue exit takes what the book gives now rather than resting.
      order_type: isPoolVenue(m.venue) ? undefined : 'FAK',
      source: RISK_MONITOR_SOURCE,
      reasoning: `${label} monitor: the position's P&L reached ${Math.round((m.triggerPnlPct ?? 0) * 1000) / 10}% at price ${m.triggerPrice}.`,
      signal_data: { exit_reason: m.exitReason, trigger_price: m.triggerPrice, pnl_pct: m.triggerPnlPct },
      idempotency_key: key,
    }),
  );
  if (!('fill_status' in result)) throw new Error('a monitor exit prepared an order instead of trading');
  return result.fill_status === 'submitted' || result.fill_status === 'unconfirmed' ? 'pending' : result;
}

/**
 * The `exit-monitored-position` job: a triggered monitor's exit, carried out once. A sale the venue
 * has not finished yet throws, so the job retries (and the evaluation re-enqueues it later if the
 * retries run out); the monitor stays `triggered` until its outcome is recorded.
 */
export async function exitMonitoredPosition(deps: VenueTradingDeps, monitorId: string, generation: number) {
  const m = (await deps.models.PositionMonitor.findById(monitorId).lean()) as PositionMonitorRecord | null;
  if (!m || m.state !== 'triggered' || m.generation !== generation)
    return { monitor_id: monitorId, outcome: 'skipped' };
  // Read once: who decides between selling and alerting, and who sells.
  const agent = (await deps.models.Agent.findById(m.agentId).lean()) as AgentRecord | null;
  if (!(await sellsItself(deps, m, agent))) {
    await raiseRiskAlert(deps, m);
    afterWrite();
    await finish(deps, m, { exitOutcome: 'alerted', exitTradeId: null, exitError: null });
    return { monitor_id: monitorId, outcome: 'alerted' };
  }
  const result = await sell(deps, m, agent);
  if (result === 'pending') throw new Error(`the exit sell of monitor ${monitorId} is not final yet`);
  // A refused sell leaves the position unprotected: the agent is told, as when it must sell itself.
  // A sold one withdraws the alert an earlier, refused run of this trigger may have raised.
  if (!result.success) await raiseRiskAlert(deps, m, result.error_code ?? 'refused');
  else await withdrawRiskAlert(deps, m);
  await finish(
    deps,
    m,
    result.success
      ? { exitOutcome: 'sold', exitTradeId: result.trade_id, exitError: null }
      : {
          exitOutcome: 'refused',
          exitTradeId: result.trade_id,
          exitError: result.error ?? result.error_code,
        },
  );
  return { monitor_id: monitorId, outcome: result.success ? 'sold' : 'refused', trade_id: result.trade_id };
}
