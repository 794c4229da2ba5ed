import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { SettingsCache } from '../limits/settings-cache.js';
import { AppError, invalidField } from '../../infra/errors.js';
import type { AgentRecord } from '../agents/agent.model.js';
import { currentSettings } from '../limits/trading-settings.js';
import { fromMicro } from '../money.js';
import { positionId, type PositionRecord } from '../positions/position.model.js';
import { isDuplicateKey } from '../refusal.js';
import type { VenueId } from '../venues/venue-id.js';
import { venueHoldingSide, venueMonitoringSide } from './monitor-venue.js';
import { monitorId, type PositionMonitorRecord } from './position-monitor.model.js';
import { monitoredPrice, pnlFraction, sideHolding } from './thresholds.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type MonitorsDeps = Pick<InfraDeps, 'env'> & { models: Models; caches: SettingsCache };

export interface MonitorRequest {
  side: 'yes' | 'no';
  stop_loss_pct?: number | null;
  take_profit_pct?: number | null;
}

/** A monitor (re)armed: a new generation, so an evaluation still holding the old one cannot trigger it. */
const armed = (
  m: Pick<PositionMonitorRecord, 'agentId' | 'marketId' | 'venue' | 'side'>,
  thresholds: Pick<PositionMonitorRecord, 'stopLossPct' | 'takeProfitPct' | 'origin'>,
) => ({
  $set: {
    ...m,
    ...thresholds,
    state: 'active',
    exitReason: null,
    triggeredAt: null,
    triggerPrice: null,
    triggerPnlPct: null,
    exitSharesMicro: null,
    exitOutcome: null,
    exitTradeId: null,
    exitError: null,
    deletedAt: null,
  },
  $inc: { generation: 1 },
});

/** `venue` null: the request named none and the agent holds the side on no venue. */
const positionNotFound = (marketId: string, side: string, venue: string | null) =>
  new AppError(
    404,
    'position_not_found',
    `No ${side.toUpperCase()} shares held in market ${marketId} on ${venue ?? 'any venue'}`,
    `A monitor watches shares you hold: buy first, or pass ?venue= for the venue of the position (without it, the venue where you hold the side is used).`,
  );

/** `venue` null: the request named none and the agent has a monitor on the side on no venue. */
const monitorNotFound = (marketId: string, side: string, venue: string | null) =>
  new AppError(
    404,
    'monitor_not_found',
    `No monitor on ${side.toUpperCase()} of market ${marketId} on ${venue ?? 'any venue'}`,
    'List yours with GET /api/sdk/positions/monitors and pass its venue as ?venue=.',
  );

const exitInProgress = () =>
  new AppError(
    409,
    'monitor_exit_in_progress',
    'This monitor has triggered and its exit is being carried out',
    'Wait a few seconds and read GET /api/sdk/positions/monitors (or your trades) before setting a new one.',
  );

/** `POST /api/sdk/positions/{market_id}/monitor` (client-contract §7.2); no `venue`: where the side is held. */
export async function setMonitor(
  deps: MonitorsDeps,
  agent: AgentRecord,
  marketId: string,
  venueAsked: VenueId | undefined,
  req: MonitorRequest,
) {
  const stopLossPct = req.stop_loss_pct ?? null;
  const takeProfitPct = req.take_profit_pct ?? null;
  if (stopLossPct === null && takeProfitPct === null)
    throw invalidField(
      'stop_loss_pct',
      'at least one of stop_loss_pct and take_profit_pct is required',
      null,
      'Send e.g. {"side": "yes", "stop_loss_pct": 0.5} (sell when the position has lost 50%) and/or "take_profit_pct": 1.0 (sell at +100%).',
    );
  const venue =
    venueAsked ?? (await venueHoldingSide(deps.models, { agentId: agent._id, marketId, side: req.side }));
  if (venue === null) throw positionNotFound(marketId, req.side, null);
  const position = await deps.models.Position.findById(positionId(agent._id, marketId, venue)).lean();
  const holding = position && sideHolding(position, req.side);
  if (!position || position.status !== 'open' || !holding || holding.freeMicro <= 0)
    throw positionNotFound(marketId, req.side, venue);
  const id = monitorId(agent._id, marketId, venue, req.side);
  try {
    await deps.models.PositionMonitor.updateOne(
      { _id: id, state: { $ne: 'triggered' } },
      armed(
        { agentId: agent._id, marketId, venue, side: req.side },
        { stopLossPct, takeProfitPct, origin: 'manual' },
      ),
      { upsert: true },
    );
  } catch (err) {
    // The filter missed an existing monitor: it is triggered (its exit is running).
    if (isDuplicateKey(err)) throw exitInProgress();
    throw err;
  }
  const parts = [
    stopLossPct !== null ? `stop-loss at -${Math.round(stopLossPct * 100)}%` : null,
    takeProfitPct !== null ? `take-profit at +${Math.round(takeProfitPct * 100)}%` : null,
  ].filter(Boolean);
  return {
    success: true,
    market_id: marketId,
    side: req.side,
    venue,
    message: `Monitor set on ${req.side.toUpperCase()}: ${parts.join(', ')}. Checked every ${deps.env.RISK_MONITOR_SECONDS} s.`,
    stop_loss_pct: stopLossPct,
    take_profit_pct: takeProfitPct,
    shares: fromMicro(holding.heldMicro),
    cost_basis: fromMicro(holding.costMicro),
  };
}

/**
 * `GET /api/sdk/positions/monitors`: monitors watching or exiting, under both keys clients read
 * (finished ones and the tombstones of deleted ones are not listed).
 */
export async function listMonitors(deps: MonitorsDeps, agent: AgentRecord) {
  const { PositionMonitor, Position, Market } = deps.models;
  const monitors = (await PositionMonitor.find({
    agentId: agent._id,
    state: { $in: ['active', 'triggered'] },
  })
    .sort({ createdAt: -1 })
    .lean()) as PositionMonitorRecord[];
  const [positions, markets] = await Promise.all([
    Position.find({ _id: { $in: monitors.map((m) => positionId(m.agentId, m.marketId, m.venue)) } }).lean(),
    Market.find(
      { _id: { $in: [...new Set(monitors.map((m) => m.marketId))] } },
      { question: 1, currentPrice: 1, externalPriceYes: 1, status: 1 },
    ).lean(),
  ]);
  const positionById = new Map(positions.map((p) => [p._id, p as PositionRecord]));
  const marketById = new Map(markets.map((m) => [m._id as string, m]));
  const rows = monitors.map((m) => {
    const p = positionById.get(positionId(m.agentId, m.marketId, m.venue));
    const market = marketById.get(m.marketId);
    const holding = p ? sideHolding(p, m.side) : null;
    const price = market ? monitoredPrice(market, m.venue, m.side) : null;
    const pnl = holding && price !== null ? pnlFraction(holding, price) : null;
    return {
      market_id: m.marketId,
      question: market?.question ?? null,
      venue: m.venue,
      side: m.side,
      stop_loss_pct: m.stopLossPct,
      take_profit_pct: m.takeProfitPct,
      shares: holding ? fromMicro(holding.heldMicro) : 0,
      cost_basis: holding ? fromMicro(holding.costMicro) : 0,
      current_price: price,
      pnl_pct: pnl === null ? null : Math.round(pnl * 1e4) / 1e4,
      status: m.state as 'active' | 'triggered',
      exit_reason: m.exitReason,
      auto: m.origin === 'auto',
      created_at: m.createdAt.toISOString(),
    };
  });
  return { monitors: rows, settings: rows, count: rows.length };
}

/**
 * `DELETE /api/sdk/positions/{market_id}/monitor?side=`: an active monitor stops watching (no `venue`: the side's).
 *
 * The monitor is not removed but tombstoned (`state: deleted`, `deletedAt`), by one guarded
 * update. Why: a buy's default monitor is armed by its after-trade-fill effects, which run after
 * the trade's answer (batched, queued, retried), so the effects of a buy the agent made before
 * this delete can land after it. Against a removed document their upsert would insert a fresh
 * monitor and re-arm what the agent deleted; against the tombstone their filter
 * (`armableBy`) misses and the insert is a duplicate key, i.e. "not armed". The tombstone also
 * keeps the `generation`, so a monitor armed again later starts a generation (and an exit
 * idempotency key) no earlier trigger of this side has used.
 */
export async function deleteMonitor(
  deps: MonitorsDeps,
  agent: AgentRecord,
  marketId: string,
  venueAsked: VenueId | undefined,
  side: 'yes' | 'no',
) {
  const venue =
    venueAsked ?? (await venueMonitoringSide(deps.models, { agentId: agent._id, marketId, side }));
  if (venue === null) throw monitorNotFound(marketId, side, null);
  const id = monitorId(agent._id, marketId, venue, side);
  // Wall clock, as the trades' mongoose `createdAt` it is compared with (not deps.clock).
  const { matchedCount } = await deps.models.PositionMonitor.updateOne(
    { _id: id, state: { $in: ['active', 'done'] } },
    { $set: { state: 'deleted', deletedAt: new Date() } },
  );
  if (!matchedCount) {
    const exiting = await deps.models.PositionMonitor.exists({ _id: id, state: 'triggered' });
    if (exiting) throw exitInProgress();
    throw monitorNotFound(marketId, side, venue);
  }
  return { success: true, market_id: marketId, side, venue, message: 'Monitor removed.' };
}

/**
 * The filter of a buy's default-monitor upsert: the side's monitor may be (re)armed by this trade
 * when it is finished (`done`) or was deleted by the agent before the trade was made. Semantics:
 * the agent's later word about a side wins over its earlier one. A buy made before the delete
 * (its `createdAt` at or before `deletedAt`; resting orders that fill after the delete included)
 * does not bring back the monitor the agent removed, however late its effects run; a buy made
 * after the delete is protected by the owner's default as any new buy is (what a buy does when
 * the side has no monitor). Clocks: `deletedAt` and the trade's `createdAt` are both stamped by
 * the service's own processes; only a buy and a delete sent within their clock skew of each other
 * could be ordered either way, and then either answer is one the agent's requests allowed.
 */
const armableBy = (id: string, tradeMadeAt: Date) => ({
  _id: id,
  state: { $in: ['done' as const, 'deleted' as const] },
  deletedAt: { $not: { $gte: tradeMadeAt } },
});

/**
 * A filled buy is protected by the owner's default monitor when `auto_risk_monitor_enabled`: armed
 * unless the side already has one (an agent's own thresholds are kept; an exit running is left
 * alone) or the agent deleted it after this buy was made (`armableBy`). One write: the upsert
 * matches only a finished or earlier-deleted monitor, and any other existing one makes the insert a
 * duplicate key, which is the "not armed" answer.
 */
export async function protectFilledBuy(
  deps: Pick<MonitorsDeps, 'models' | 'caches'>,
  t: {
    agentId: string;
    marketId: string;
    venue: VenueId;
    side: 'yes' | 'no';
    action: string;
    ownerKey: string | null;
    /** When the trade was made (its record's `createdAt`). */
    createdAt: Date;
  },
) {
  if (t.action !== 'buy' || !t.ownerKey) return false;
  const s = await currentSettings(deps, { key: t.ownerKey });
  if (!s.autoRiskMonitorEnabled || (s.defaultStopLossPct === null && s.defaultTakeProfitPct === null))
    return false;
  try {
    await deps.models.PositionMonitor.updateOne(
      armableBy(monitorId(t.agentId, t.marketId, t.venue, t.side), t.createdAt),
      armed(
        { agentId: t.agentId, marketId: t.marketId, venue: t.venue, side: t.side },
        { stopLossPct: s.defaultStopLossPct, takeProfitPct: s.defaultTakeProfitPct, origin: 'auto' },
      ),
      { upsert: true },
    );
    return true;
  } catch (err) {
    if (isDuplicateKey(err)) return false;
    throw err;
  }
}

/** A filled buy as `protectFilledBuys` reads it. */
type FilledBuy = Parameters<typeof protectFilledBuy>[1];

/**
 * `protectFilledBuy` for many fills at once (the effects of a batch of fills): the same upserts, in
 * one bulk command. Answers in order, whether each armed a monitor (a duplicate key is a side
 * already protected or deleted after the trade, as in the one-fill write).
 */
export async function protectFilledBuys(
  deps: Pick<MonitorsDeps, 'models' | 'caches'>,
  fills: FilledBuy[],
): Promise<boolean[]> {
  const ops = await Promise.all(
    fills.map(async (t) => {
      if (t.action !== 'buy' || !t.ownerKey) return null;
      const s = await currentSettings(deps, { key: t.ownerKey });
      if (!s.autoRiskMonitorEnabled || (s.defaultStopLossPct === null && s.defaultTakeProfitPct === null))
        return null;
      return {
        updateOne: {
          filter: armableBy(monitorId(t.agentId, t.marketId, t.venue, t.side), t.createdAt),
          update: armed(
            { agentId: t.agentId, marketId: t.marketId, venue: t.venue, side: t.side },
            {
              stopLossPct: s.defaultStopLossPct,
              takeProfitPct: s.defaultTakeProfitPct,
              origin: 'auto' as const,
            },
          ),
          upsert: true,
        },
      };
    }),
  );
  const writes = ops.flatMap((op, i) => (op ? [{ op, i }] : []));
  const armedAt = new Set(writes.map((w) => w.i));
  if (!writes.length) return fills.map(() => false);
  try {
    await deps.models.PositionMonitor.bulkWrite(
      writes.map((w) => w.op),
      { ordered: false },
    );
  } catch (err) {
    const failed = (err as { writeErrors?: { index: number; code?: number }[] }).writeErrors;
    if (!failed?.length || failed.some((e) => e.code !== 11000)) throw err;
    for (const e of failed) armedAt.delete(writes[e.index]!.i);
  }
  return fills.map((_, i) => armedAt.has(i));
}
