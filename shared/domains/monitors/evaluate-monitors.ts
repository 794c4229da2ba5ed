import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import { afterWrite } from '../../infra/faults.js';
import { positionId, type PositionRecord } from '../positions/position.model.js';
import type { MarketRecord } from '../markets/market.model.js';
import type { PositionMonitorRecord } from './position-monitor.model.js';
import { crossed, monitoredPrice, pnlFraction, sideHolding } from './thresholds.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type EvaluateMonitorsDeps = Pick<InfraDeps, 'queues'> & { models: Models };

/** Monitors read per batch: one read of their positions and one of their markets per batch. */
const BATCH = 500;
/** A triggered exit still unfinished after this long is enqueued again (its job failed for good or vanished). */
const STALE_EXIT_MS = 60_000;

type Outcome = 'triggered' | 'closed' | 'watching';

/**
 * Decides one monitor against its position and market and records the decision with one guarded
 * update (`{_id, state: active, generation}`): of two evaluations that overlap, one moves it, the
 * other matches nothing. A position sold or settled meanwhile ends its monitor.
 */
async function decide(
  deps: EvaluateMonitorsDeps,
  m: PositionMonitorRecord,
  p: PositionRecord | undefined,
  market: Pick<MarketRecord, 'currentPrice' | 'status' | 'externalPriceYes'> | undefined,
  now: Date,
): Promise<Outcome> {
  const { PositionMonitor } = deps.models;
  const guard = { _id: m._id, state: 'active' as const, generation: m.generation };
  const holding = p && p.status === 'open' ? sideHolding(p, m.side) : null;
  if (!holding || holding.heldMicro <= 0) {
    const ended = await PositionMonitor.updateOne(guard, { $set: { state: 'done' } });
    return ended.modifiedCount ? 'closed' : 'watching';
  }
  // A market that stopped trading is left to its resolution (and redemption).
  if (!market || market.status !== 'active' || holding.freeMicro <= 0) return 'watching';
  const price = monitoredPrice(market, m.venue, m.side);
  const reason = crossed(m, holding, price);
  if (!reason) return 'watching';
  const won = await PositionMonitor.updateOne(guard, {
    $set: {
      state: 'triggered',
      exitReason: reason,
      triggeredAt: now,
      triggerPrice: price,
      triggerPnlPct: pnlFraction(holding, price),
      exitSharesMicro: holding.freeMicro,
    },
  });
  afterWrite(won.modifiedCount > 0);
  if (!won.modifiedCount) return 'watching';
  await deps.queues.enqueue('exit-monitored-position', {
    monitorId: m._id,
    generation: m.generation,
    attempt: 't',
  });
  return 'triggered';
}

/**
 * The `evaluate-position-monitors` job: every active monitor (never a deleted one's tombstone, nor a
 * finished one), in batches by id, each batch with
 * one read of its positions and one of its markets (a market read once however many positions
 * watch it). Exits run as their own jobs, so a slow venue sell does not hold up the evaluation;
 * an exit left unfinished (its job lost or failed for good) is enqueued again.
 */
export async function evaluateMonitors(deps: EvaluateMonitorsDeps, now: Date) {
  const { PositionMonitor, Position, Market } = deps.models;
  const counts = { evaluated: 0, triggered: 0, closed: 0, markets_read: 0, exits_resumed: 0 };
  let after = '';
  for (;;) {
    const batch = (await PositionMonitor.find({ state: 'active', _id: { $gt: after } })
      .sort({ _id: 1 })
      .limit(BATCH)
      .lean()) as PositionMonitorRecord[];
    if (!batch.length) break;
    after = batch[batch.length - 1]!._id;
    const marketIds = [...new Set(batch.map((m) => m.marketId))];
    const [positions, markets] = await Promise.all([
      Position.find({ _id: { $in: batch.map((m) => positionId(m.agentId, m.marketId, m.venue)) } }).lean(),
      Market.find({ _id: { $in: marketIds } }, { currentPrice: 1, externalPriceYes: 1, status: 1 }).lean(),
    ]);
    counts.markets_read += markets.length;
    const positionById = new Map(positions.map((p) => [p._id, p as PositionRecord]));
    const marketById = new Map(markets.map((m) => [m._id as string, m]));
    for (const m of batch) {
      counts.evaluated++;
      const outcome = await decide(
        deps,
        m,
        positionById.get(positionId(m.agentId, m.marketId, m.venue)),
        marketById.get(m.marketId),
        now,
      );
      if (outcome !== 'watching') counts[outcome]++;
    }
    if (batch.length < BATCH) break;
  }
  const stale = (await PositionMonitor.find(
    { state: 'triggered', triggeredAt: { $lt: new Date(now.getTime() - STALE_EXIT_MS) } },
    { generation: 1 },
  )
    .limit(BATCH)
    .lean()) as Pick<PositionMonitorRecord, '_id' | 'generation'>[];
  const attempt = `r${Math.floor(now.getTime() / STALE_EXIT_MS)}`;
  for (const m of stale) {
    await deps.queues.enqueue('exit-monitored-position', {
      monitorId: m._id,
      generation: m.generation,
      attempt,
    });
    counts.exits_resumed++;
  }
  return counts;
}
