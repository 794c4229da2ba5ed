import type { AgentRecord } from '../../agents/agent.model.js';
import { AppError } from '../../../infra/errors.js';
import { RetryLater } from '../../../infra/queue/job-errors.js';
import { rollForwardAgent } from '../../ledger/ledger.js';
import type { LedgerEntryRecord } from '../../ledger/ledger-entry.model.js';
import type { MarketEventRecord } from '../../markets/market-event.model.js';
import { rollForwardMarket } from '../../markets/market-log.js';
import type { MarketRecord } from '../../markets/market.model.js';
import type { Models } from '../../models.js';
import { positionId, type PositionRecord } from '../../positions/position.model.js';
import { isDuplicateKey } from '../../refusal.js';
import type { TradeAnswer, TradeExecutionContext } from '../../trading/venue-trading.js';
import { goLiveBlock } from '../../trading/go-live.js';
import { finishTrades, outcomeNotRecorded, type TradeOutcome } from '../../trading/trade-lifecycle.js';
import type { TradeRecord } from '../../trading/trade.model.js';
import { filledResult, refusedResult, shapeOf, type TradeShape } from '../../trading/trade-result.js';
import type { TradeResult } from '../../trading/trade.schemas.js';
import { commitRecords, writeHeads } from './sim-commit.js';
import { orderOf, SimPlan, stepIds, type LoggedSteps, type PlannedTrade, type SimOrder } from './sim-plan.js';

/**
 * The sim engine: one module runs every sim trade, N at a time. A pass reads the heads the trades
 * touch, plans them in memory (sim-plan.ts) and writes what the plan adds (sim-commit.ts), then
 * the trades' outcomes. The group commit is a pass over the trades a worker has in hand; a single
 * trade (a resumed one, or one the group commit could not take) is N = 1 of the same pass; the dry
 * run is the plan of one trade, never written.
 *
 * Exactly-once, conservation and one writer per stream are the logs' properties: every record's id
 * derives from its trade and its sequence number is unique per stream, so a crash anywhere leaves
 * logs a later pass reads and continues from, and a record another writer got in first makes the
 * insert fail and the pass plan again.
 */

/** A trade to run, and whether this is its first run (claimed just now: the kill switch is looked at). */
interface Run {
  t: TradeRecord;
  firstRun: boolean;
}

/** What one pass did: the answers it recorded; the trades it could not finish go again. */
interface PassResult {
  answers: Map<string, TradeResult>;
  /** Every step logged, but the outcome not recorded (the trade is no longer executing). */
  unrecorded: Set<string>;
}

/** Passes over one trade before its job is told to try later: contention on a stream never stops. */
const MAX_PASSES = 50;

const unique = (ids: string[]) => [...new Set(ids)];

/** Reads the heads the orders touch: agents and markets, then positions. */
async function loadHeads(models: Models, plan: SimPlan, orders: SimOrder[]): Promise<void> {
  const { Agent, Market, Position } = models;
  const pids = unique(orders.map((o) => positionId(o.agentId, o.marketId, 'sim')));
  const [agents, markets] = await Promise.all([
    Agent.find({ _id: { $in: unique(orders.map((o) => o.agentId)) } }).lean(),
    Market.find({ _id: { $in: unique(orders.map((o) => o.marketId)) } }).lean(),
  ]);
  // Positions only after their agents: a writer applies an entry to the position before its agent,
  // so a position read later is never behind the agent read, and one ahead is caught by the plan.
  // Read together, a position could predate entries its agent already counts, and be decided on stale.
  const positions = await Position.find({ _id: { $in: pids } }).lean();
  for (const a of agents) plan.agents.load(a._id, a as AgentRecord);
  for (const m of markets) plan.markets.load(m._id, m as MarketRecord);
  for (const pid of pids) plan.positions.load(pid, null);
  for (const p of positions) plan.positions.load(p._id, p as PositionRecord);
}

/** Brings the orders' agents and markets up to date with their logs. */
async function rollForward(models: Models, orders: SimOrder[]): Promise<void> {
  await Promise.all([
    ...unique(orders.map((o) => o.agentId)).map((id) => rollForwardAgent(models, id)),
    ...unique(orders.map((o) => o.marketId)).map((id) => rollForwardMarket(models, id)),
  ]);
}

/** The steps these trades already logged (an earlier run stopped half-way), by trade. */
async function loggedSteps(models: Models, tradeIds: string[]): Promise<Map<string, LoggedSteps>> {
  const ids = tradeIds.map(stepIds);
  const [entries, events] = await Promise.all([
    models.LedgerEntry.find({ _id: { $in: ids.flatMap((s) => [s.reserve, s.settle, s.release]) } }).lean(),
    models.MarketEvent.find({ _id: { $in: tradeIds } }).lean(),
  ]);
  const byId = new Map<string, LedgerEntryRecord | MarketEventRecord>();
  for (const r of [...entries, ...events]) byId.set(r._id, r as LedgerEntryRecord | MarketEventRecord);
  return new Map(
    tradeIds.map((id, i) => {
      const s = ids[i]!;
      return [
        id,
        {
          reserve: byId.get(s.reserve) as LedgerEntryRecord | undefined,
          settle: byId.get(s.settle) as LedgerEntryRecord | undefined,
          release: byId.get(s.release) as LedgerEntryRecord | undefined,
          fill: byId.get(s.fill) as MarketEventRecord | undefined,
        },
      ];
    }),
  );
}

/**
 * The answer and recorded outcome of a planned trade: a fill with the holdings right after it and
 * the go-live nudge, or its refusal.
 */
function answerOf(
  ctx: Pick<TradeExecutionContext, 'baseUrl' | 'claimUrlFor'>,
  t: TradeRecord,
  w: PlannedTrade,
): { result: TradeResult; outcome: TradeOutcome } {
  if (!w.fill || !w.settle) {
    const refusal = w.refusal!;
    return { result: refusedResult(shapeOf(t), w.market, refusal, w.holdings!, false), outcome: { refusal } };
  }
  const ev = w.fill;
  const agent = w.agentBefore!;
  const claimUrl = agent.claimedBy ? null : ctx.claimUrlFor(agent.claimCode);
  const goLive = goLiveBlock(w.settle.simTradesAfter, agent.realTradesCount ?? 0, ctx.baseUrl, claimUrl);
  return {
    result: filledResult(shapeOf(t), w.market, ev, w.holdings!, { dryRun: false, goLive }),
    outcome: {
      fill: {
        sharesMicro: ev.sharesMicro,
        amountMicro: ev.amountMicro,
        priceBefore: ev.priceBefore ?? 0,
        priceAfter: ev.priceAfter ?? 0,
        balanceAfterMicro: w.holdings!.balanceMicro,
      },
    },
  };
}

/**
 * One pass over `runs`. `fast`: the trades were all claimed just now, so nothing of them is logged
 * and the heads are read as they are; whatever that cannot see (a head behind its log) shows as a
 * conflict on insert. Otherwise heads are rolled forward and logged steps read first.
 */
async function pass(ctx: TradeExecutionContext, runs: Run[], fast: boolean): Promise<PassResult> {
  const { models } = ctx;
  const none: PassResult = { answers: new Map(), unrecorded: new Set() };
  const orders = runs.map((r) => orderOf(r.t));
  if (!fast) await rollForward(models, orders);
  const plan = new SimPlan(ctx.now());
  const [logged, halts] = await Promise.all([
    fast
      ? new Map<string, LoggedSteps>()
      : loggedSteps(
          models,
          orders.map((o) => o.id!),
        ),
    // The kill switch and the automaton's halt again, now that a worker takes the trades: one
    // queued before the pause or halt does not run after it. A resumed trade began before and runs
    // to its end.
    Promise.all(runs.map((r) => (r.firstRun ? ctx.haltedBy(r.t) : null))),
    loadHeads(models, plan, orders),
  ]);
  const planned = new Map<string, TradeRecord>();
  runs.forEach((r, i) => {
    if (plan.add(orders[i]!, { halt: halts[i] ?? null, logged: logged.get(r.t._id) }))
      planned.set(r.t._id, r.t);
  });
  const decided = plan.decide();
  try {
    await commitRecords(models, plan);
  } catch (err) {
    // Another writer took a sequence number (or logged one of these records): plan again.
    if (isDuplicateKey(err)) return none;
    throw err;
  }
  if (!(await writeHeads(models, plan))) {
    // Another writer applied some of these records first: the heads follow the logs.
    await rollForward(
      models,
      decided.map((w) => w.order),
    );
  }
  const finishes = decided.map((w) => ({
    tradeId: w.order.id!,
    ...answerOf(ctx, planned.get(w.order.id!)!, w),
  }));
  const answers = await finishTrades(models, finishes, plan.at);
  return { answers, unrecorded: new Set([...planned.keys()].filter((id) => !answers.has(id))) };
}

/**
 * Runs one trade to its end, exactly once however often it is called: passes until one finds it
 * consistent and writes it whole. A resumed trade continues from the steps its logs hold.
 */
async function runOne(ctx: TradeExecutionContext, run: Run): Promise<TradeResult> {
  const id = run.t._id;
  for (let attempt = 0; attempt < MAX_PASSES; attempt++) {
    // Jitter spreads writers contending for one stream apart.
    if (attempt > 0) await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 * attempt)));
    const done = await pass(ctx, [run], false);
    const result = done.answers.get(id);
    if (result) return result;
    if (done.unrecorded.has(id))
      throw outcomeNotRecorded(id, (await ctx.models.Trade.findById(id, { status: 1 }).lean())?.status);
  }
  throw new RetryLater(
    'sim_contention',
    `Trade ${id} met other writers on its agent or market ${MAX_PASSES} times in a row`,
    'The job tries again.',
  );
}

/**
 * Executes trades claimed just now together (the group commit): one pass over all of them; the ones
 * it could not finish (a conflict, a head half-way through another writer's apply, an interruption)
 * then run one by one, resuming from what the pass logged.
 */
export async function runSimTrades(
  ctx: TradeExecutionContext,
  claimed: TradeRecord[],
): Promise<Map<string, TradeAnswer>> {
  const answers = new Map<string, TradeAnswer>();
  try {
    const done = await pass(
      ctx,
      claimed.map((t) => ({ t, firstRun: true })),
      true,
    );
    for (const [id, result] of done.answers) answers.set(id, { result });
  } catch (err) {
    ctx.log.warn({ err, trades: claimed.length }, 'group commit interrupted; its trades resume one by one');
  }
  for (const t of claimed) {
    if (answers.has(t._id)) continue;
    try {
      answers.set(t._id, { result: await runOne(ctx, { t, firstRun: true }) });
    } catch (error) {
      answers.set(t._id, { error });
    }
  }
  return answers;
}

/** A sim trade run alone (VenueTrading.execute): a resume, or a first run the caller has checked. */
export const executeSimTrade = (ctx: TradeExecutionContext, t: TradeRecord): Promise<TradeResult> =>
  runOne(ctx, { t, firstRun: false });

/** Passes a dry run makes before it gives up on heads that other writers keep moving. */
const QUOTE_PASSES = 5;

/**
 * A dry run: the plan of the trade on the current state, never written. The same decisions as the
 * live trade, so a dry-run quote is what a live trade at that state fills at.
 */
export async function quoteSimTrade(
  models: Models,
  agent: AgentRecord,
  market: MarketRecord,
  shape: TradeShape,
  limit: number | null,
  now: Date,
): Promise<TradeResult> {
  const order: SimOrder = {
    id: null,
    agentId: agent._id,
    marketId: market._id,
    action: shape.action,
    side: shape.side,
    amountMicro: shape.amountMicro,
    sharesMicro: shape.sharesMicro,
    limit,
    source: null,
  };
  for (let attempt = 0; attempt < QUOTE_PASSES; attempt++) {
    await rollForward(models, [order]);
    const plan = new SimPlan(now);
    await loadHeads(models, plan, [order]);
    if (!plan.add(order)) continue;
    const [w] = plan.decide();
    return w!.fill
      ? filledResult(shape, w!.market, w!.fill, w!.holdings!, { dryRun: true })
      : refusedResult(shape, w!.market, w!.refusal!, w!.holdings!, true);
  }
  throw new AppError(
    503,
    'sim_contention',
    'The market or the agent changed on every read; the dry run could not be quoted.',
    'Send the dry run again.',
    { retryable: true },
  );
}
