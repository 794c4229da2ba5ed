// Large catalogues and agent populations inserted straight into the database (the point of the
// benches that use them is the reads and trades on top, not the import path), in batches of 5,000.
import { randomUUID } from 'node:crypto';
import type { Models } from '../shared/domains/models.js';
import { STARTING_BALANCE_MICRO } from '../shared/domains/money.js';
import { stateAt } from '../shared/domains/markets/lmsr.js';

const BATCH = 5000;
const WORDS = [
  'bitcoin',
  'election',
  'inflation',
  'championship',
  'launch',
  'award',
  'rates',
  'storm',
  'merger',
  'summit',
];
const TAGS = ['politics', 'sports', 'crypto', 'economics', 'science', 'culture'];

/**
 * Bench markets number `from` to `to - 1`: one in 20 resolved, one in 3 marked as imported from
 * Polymarket, every one tradeable on the sim venue at 50 %. Returns the ids of the active ones that
 * came from the sim catalogue, in order.
 */
export async function seedMarkets(models: Models, from: number, to: number, now = Date.now()) {
  const s = stateAt(2241, 0.5);
  const simActive: string[] = [];
  for (let start = from; start < to; start += BATCH) {
    const docs = Array.from({ length: Math.min(BATCH, to - start) }, (_, k) => {
      const i = start + k;
      const status = i % 20 === 0 ? 'resolved' : 'active';
      const importSource = i % 3 === 0 ? 'polymarket' : 'sim';
      const _id = randomUUID();
      if (status === 'active' && importSource === 'sim') simActive.push(_id);
      return {
        _id,
        question: `Will the ${WORDS[i % WORDS.length]} market #${i} resolve YES?`,
        status,
        importSource,
        tags: [TAGS[i % TAGS.length]!, `group-${i % 100}`],
        currentPrice: 0.5,
        volume24hMicro: (i * 7919) % 1_000_000_000,
        resolvesAt: new Date(now + ((i % 2000) + 1) * 3600_000),
        createdAt: new Date(now - i * 1000),
        isOrderbookOpen: true,
        simTradeable: true,
        analyticsOnly: false,
        tickSize: 0.01,
        feeRateBps: 0,
        book: { b: 2241, q0Yes: s.qYes, q0No: s.qNo, yesMicro: 0, noMicro: 0, version: 0 },
      };
    });
    await models.Market.collection.insertMany(docs as never[], { ordered: false });
  }
  return simActive;
}

/** Bench agents number `from` to `to - 1`, each with some trading history and a spread of P&L. */
export async function seedAgents(models: Models, from: number, to: number, now = Date.now()): Promise<void> {
  for (let start = from; start < to; start += BATCH) {
    const docs = Array.from({ length: Math.min(BATCH, to - start) }, (_, k) => {
      const i = start + k;
      const pnl = ((i * 104729) % 2_000_000_000) - 1_000_000_000;
      return {
        _id: randomUUID(),
        name: `bench-agent-${i}`,
        apiKeyHash: randomUUID(),
        keyPrefix: 'sk_live_bench...',
        claimCode: `bench-${i}`,
        status: 'unclaimed',
        balanceMicro: STARTING_BALANCE_MICRO + pnl,
        startingBalanceMicro: STARTING_BALANCE_MICRO,
        reservedMicro: 0,
        realizedPnlMicro: pnl,
        leaderboardPnlMicro: pnl,
        ledgerSeq: 0,
        simTradesCount: 1 + (i % 50),
        realTradesCount: 0,
        tradesCount: 1 + (i % 50),
        winCount: i % 7,
        lossCount: i % 5,
        autoRedeemEnabled: true,
        createdAt: new Date(now - i * 1000),
      };
    });
    await models.Agent.collection.insertMany(docs as never[], { ordered: false });
  }
}

/** Templates of what one real sim buy leaves behind: its trade, ledger entries, position and fill event. */
export interface HistoryTemplates {
  trade: Record<string, unknown>;
  entries: Record<string, unknown>[];
  position: Record<string, unknown>;
  event: Record<string, unknown>;
}

/**
 * The records of one real filled sim buy (the readers' own trades), to be cloned by seedHistory:
 * the same fields, nesting and sizes as the service writes them.
 */
export async function historyTemplates(models: Models): Promise<HistoryTemplates> {
  const trade = await models.Trade.collection.findOne({ status: 'filled', venue: 'sim', action: 'buy' });
  if (!trade) throw new Error('no filled sim buy to copy the history from');
  const [entries, position, event] = await Promise.all([
    models.LedgerEntry.collection.find({ tradeId: trade._id }).toArray(),
    models.Position.collection.findOne({ agentId: trade.agentId, marketId: trade.marketId }),
    models.MarketEvent.collection.findOne({ _id: trade._id as never }),
  ]);
  if (!entries.length || !position || !event)
    throw new Error('the template trade left no ledger/position/event');
  return { trade, entries, position, event } as unknown as HistoryTemplates;
}

/** Trades per insert batch of the history (with their ledger entries and events). */
const HISTORY_BATCH = 5_000;

/** Markets an agent trades again and again (its "book"): the history's positions per agent. */
const MARKETS_PER_AGENT = 20;

/**
 * Trades number `from` to `to - 1` of a recorded history, inserted straight into the database with
 * what each filled sim buy leaves behind (in rounds of HISTORY_BATCH trades, two in flight, so that
 * neither this process nor the database holds more than a few rounds beyond the stored history): the trade (one in 25 refused), its ledger entries, one
 * fill event in the market's log, and the agent's position in that market (one per agent and
 * market, written once at the end of each batch with the totals so far). Trade `i` belongs to
 * agent `i mod agents.length` (so every agent, readers included, gets the same share) and to one
 * of that agent's MARKETS_PER_AGENT markets; times spread over the last 30 days. Sequence numbers
 * continue from `seqs` (per agent: ledger; per market: event log), which the caller keeps between
 * calls; the agents' ledgerSeq/trade counters and the markets' book versions are moved forward to
 * match, so a later trade continues the same logs.
 */
export async function seedHistory(
  models: Models,
  t: HistoryTemplates,
  from: number,
  to: number,
  pools: { agents: string[]; markets: string[]; seqs: Map<string, number>; readers?: Set<string> },
  now = Date.now(),
): Promise<void> {
  const { agents, markets, seqs } = pools;
  // The memory database keeps every field of every document on its heap, so a trade no read under
  // test returns goes in without what only the service's own bookkeeping reads back: `result` (the
  // stored answer, replayed only for a resent idempotency key; these trades have none) and
  // `admission` (read only while `admissionSettled` is not true). The readers' own trades, which
  // context and the trades list return whole, are cloned whole. Everything the per-agent reads and
  // indexes match on, and every ledger entry, event and position, stays as the service writes it.
  const { result: _result, admission: _admission, ...lean } = t.trade;
  const readers = pools.readers;
  const positions = new Map<string, Record<string, unknown>>();
  const touchedAgents = new Map<string, { trades: number }>();
  const touchedMarkets = new Set<string>();
  const day = 24 * 3600_000;
  // Two batches in flight: this process builds and serialises the next while the database inserts
  // the last (its collections take inserts in parallel, each one at a time).
  let inFlight: Promise<unknown> = Promise.resolve();
  for (let start = from; start < to; start += HISTORY_BATCH) {
    const trades: Record<string, unknown>[] = [];
    const entries: Record<string, unknown>[] = [];
    const events: Record<string, unknown>[] = [];
    for (let i = start; i < Math.min(to, start + HISTORY_BATCH); i++) {
      const agentId = agents[i % agents.length]!;
      const round = Math.floor(i / agents.length);
      const marketId =
        markets[
          (((i % agents.length) * 7919 + (round % MARKETS_PER_AGENT) * 104_729) >>> 0) % markets.length
        ]!;
      const tradeId = randomUUID();
      // Oldest first: trade i of `to` happened (to - i) / to of 30 days ago.
      const at = new Date(now - Math.round(((to - i) / Math.max(1, to)) * 30 * day));
      const refused = i % 25 === 24;
      const side = i % 3 === 0 ? 'no' : 'yes';
      const amountMicro = (5 + (i % 45)) * 1_000_000;
      const sharesMicro = Math.round(amountMicro / 0.5);
      const whole = !readers || readers.has(agentId);
      trades.push({
        ...(whole ? t.trade : lean),
        _id: tradeId,
        agentId,
        marketId,
        side,
        amountMicro,
        status: refused ? 'rejected' : 'filled',
        fill: refused ? null : { ...(t.trade.fill as object), sharesMicro, amountMicro },
        errorCode: refused ? 'INSUFFICIENT_BALANCE' : null,
        failureReason: refused ? 'insufficient balance' : null,
        ...(whole && {
          result: { ...(t.trade.result as object), trade_id: tradeId, market_id: marketId, side },
        }),
        // Settled long ago, as every recorded admission is (an unsettled one is the reconcile job's work).
        admissionSettled: true,
        createdAt: at,
        updatedAt: at,
        executedAt: at,
        finishedAt: at,
      });
      if (refused) continue;
      for (const e of t.entries) {
        const seq = (seqs.get(agentId) ?? 0) + 1;
        seqs.set(agentId, seq);
        entries.push({
          ...e,
          _id: `${tradeId}-${String(e._id).split('-').at(-1)}`,
          agentId,
          seq,
          tradeId,
          at,
          position: e.position
            ? { ...(e.position as object), positionId: `${agentId}:${marketId}:sim`, marketId }
            : null,
        });
      }
      const mseq = (seqs.get(marketId) ?? 0) + 1;
      seqs.set(marketId, mseq);
      events.push({ ...t.event, _id: tradeId, marketId, seq: mseq, side, sharesMicro, amountMicro, at });
      const positionId = `${agentId}:${marketId}:sim`;
      const p = positions.get(positionId) ?? {
        ...t.position,
        _id: positionId,
        agentId,
        marketId,
        sharesYesMicro: 0,
        sharesNoMicro: 0,
        costYesMicro: 0,
        costNoMicro: 0,
        openedAt: at,
        createdAt: at,
      };
      const yes = side === 'yes';
      p[yes ? 'sharesYesMicro' : 'sharesNoMicro'] =
        (p[yes ? 'sharesYesMicro' : 'sharesNoMicro'] as number) + sharesMicro;
      p[yes ? 'costYesMicro' : 'costNoMicro'] =
        (p[yes ? 'costYesMicro' : 'costNoMicro'] as number) + amountMicro;
      Object.assign(p, { appliedSeq: seqs.get(agentId), lastTradeAt: at, updatedAt: at });
      positions.set(positionId, p);
      touchedAgents.set(agentId, { trades: (touchedAgents.get(agentId)?.trades ?? 0) + 1 });
      touchedMarkets.add(marketId);
    }
    const batch = Promise.all([
      models.Trade.collection.insertMany(trades as never[], { ordered: false }),
      entries.length && models.LedgerEntry.collection.insertMany(entries as never[], { ordered: false }),
      events.length && models.MarketEvent.collection.insertMany(events as never[], { ordered: false }),
    ]);
    batch.catch(() => undefined); // awaited below; this only keeps it from counting as unhandled meanwhile
    await inFlight;
    inFlight = batch;
  }
  await inFlight;
  // Positions: one upsert each with the totals (an agent may already hold the market from before).
  const rows = [...positions.values()];
  for (let k = 0; k < rows.length; k += BATCH) {
    await models.Position.collection.bulkWrite(
      rows.slice(k, k + BATCH).map((p) => {
        const {
          _id,
          sharesYesMicro,
          sharesNoMicro,
          costYesMicro,
          costNoMicro,
          openedAt,
          createdAt,
          ...rest
        } = p;
        return {
          updateOne: {
            filter: { _id: _id as never },
            update: {
              $inc: { sharesYesMicro, sharesNoMicro, costYesMicro, costNoMicro },
              $set: rest,
              $setOnInsert: { openedAt, createdAt },
            },
            upsert: true,
          },
        };
      }) as never[],
      { ordered: false },
    );
  }
  const agentOps = [...touchedAgents].map(([id, { trades }]) => ({
    updateOne: {
      filter: { _id: id as never },
      update: {
        $set: { ledgerSeq: seqs.get(id) ?? 0, lastTradeAt: new Date(now) },
        $inc: { tradesCount: trades, simTradesCount: trades },
      },
    },
  }));
  const marketOps = [...touchedMarkets].map((id) => ({
    updateOne: {
      filter: { _id: id as never },
      update: { $set: { 'book.version': seqs.get(id) ?? 0, lastTradeAt: new Date(now) } },
    },
  }));
  for (let k = 0; k < agentOps.length; k += BATCH)
    await models.Agent.collection.bulkWrite(agentOps.slice(k, k + BATCH) as never[], { ordered: false });
  for (let k = 0; k < marketOps.length; k += BATCH)
    await models.Market.collection.bulkWrite(marketOps.slice(k, k + BATCH) as never[], { ordered: false });
}
