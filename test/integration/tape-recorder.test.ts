import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { importTape } from '../../shared/domains/tapes/import-tape.js';
import { recordTapes } from '../../shared/domains/tapes/record-tapes.js';
import { listStoreFiles, tapeDirs } from '../../shared/domains/tapes/tape-store.js';
import { withDuckDb } from '../../shared/infra/duckdb.js';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent } from '../support/http.js';
import {
  kalshiAdmin,
  newKalshiEvent,
  newPolymarketEvent,
  polymarketAdmin,
  polymarketEventUrl,
} from '../support/venue-emulators.js';

const today = () => new Date().toISOString().slice(0, 10);
const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

/**
 * A built tape's two files imported into the store as a source of their own, all their prints taken:
 * what the recorder writes holds every rule an import checks (tape-invariants.ts).
 */
async function importsWhole(tape: { key: string; quant_rows: number }) {
  const dirs = tapeDirs(testContext().env.DATA_DIR);
  const files = join(dirs.slices, tape.key);
  const summary = await importTape(
    dirs,
    `again-${randomUUID().slice(0, 8)}`,
    join(files, 'markets.parquet'),
    join(files, 'quant.parquet'),
  );
  assert.equal(summary.prints, tape.quant_rows);
  assert.equal(summary.orphan_prints, 0);
}

describe('tape recorder #integration', () => {
  it('records sim fills and market rows once: a second run adds nothing, and the tape shows them pseudonymised', async () => {
    const ctx = testContext();
    const word = `zebra${randomUUID().slice(0, 6)}`;
    const m = await makeMarket({ question: `Will the ${word} cross the road?` });
    const agent = await registerAgent({ name: 'tape-trader' });
    for (const amount of [20, 30]) {
      const res = await trade(agent, { market_id: m._id, side: 'yes', amount, venue: 'sim' });
      assert.equal(res.body.success, true, JSON.stringify(res.body));
    }
    const sell = await trade(agent, {
      market_id: m._id,
      side: 'yes',
      action: 'sell',
      shares: 5,
      venue: 'sim',
    });
    assert.equal(sell.body.success, true, JSON.stringify(sell.body));

    const first = await recordTapes(ctx.deps);
    assert.equal(first.skipped, undefined);
    assert.ok(first.prints.sim! >= 3, JSON.stringify(first));
    const cursor = await ctx.deps.models.TapeCursor.findById(`sim:${m._id}`).lean();
    assert.equal(cursor?.seqThrough, 3, 'three fills, three events of the market’s log');
    // The sim source's files and the market rows: the emulated venues' crowd keeps trading the
    // markets other suites imported, so their prints may grow between the two runs, rightly.
    const simFiles = () => {
      const { markets, prints } = listStoreFiles(tapeDirs(ctx.env.DATA_DIR));
      return { markets, prints: prints.filter((p) => p.source === 'sim') };
    };
    const files = simFiles();

    const second = await recordTapes(ctx.deps);
    assert.equal(second.prints.sim, 0, 'nothing new: nothing written');
    assert.equal(second.markets, 0, 'no market changed: no market row written');
    assert.deepEqual(simFiles(), files, 'the store is unchanged');

    const tape = await api()
      .post('/api/backtest/tape')
      .set('Authorization', `Bearer ${agent.api_key}`)
      .send({ t0: today(), t1: tomorrow(), min_volume: 0, q: word });
    assert.equal(tape.status, 200, JSON.stringify(tape.body));
    assert.equal(tape.body.markets, 1);
    assert.equal(tape.body.quant_rows, 3);
    assert.deepEqual(tape.body.sources, [{ source: 'sim', markets: 1, quant_rows: 3 }]);

    const dirs = tapeDirs(ctx.env.DATA_DIR);
    const prints = await withDuckDb(async (db) =>
      (
        await db.runAndReadAll(
          `SELECT market_id, condition_id, side, price, usd_amount, token_amount, maker, taker
           FROM read_parquet('${dirs.slices}/${tape.body.key}/quant.parquet') ORDER BY side, usd_amount`,
        )
      ).getRowObjectsJson(),
    );
    assert.deepEqual(
      prints.map((p) => p.side),
      ['BUY', 'BUY', 'SELL'],
    );
    for (const p of prints) {
      assert.equal(p.market_id, m._id);
      assert.equal(p.maker, 'sim-lmsr');
      assert.match(String(p.taker), /^agent-[0-9a-f]{16}$/);
      assert.ok(!String(p.taker).includes(agent.agent_id), 'the agent id is not published');
      assert.ok(Number(p.price) > 0.4 && Number(p.price) < 0.7);
    }
    assert.equal(new Set(prints.map((p) => p.taker)).size, 1, 'one agent reads as one trader');
    const [buy] = prints;
    assert.ok(Math.abs(Number(buy!.usd_amount) / Number(buy!.token_amount) - Number(buy!.price)) < 1e-9);
    const markets = await withDuckDb(async (db) =>
      (
        await db.runAndReadAll(
          `SELECT id, question, condition_id, closed, active, outcome_prices, created_at IS NOT NULL AS has_created
           FROM read_parquet('${dirs.slices}/${tape.body.key}/markets.parquet')`,
        )
      ).getRowObjectsJson(),
    );
    assert.equal(markets[0]!.id, m._id);
    assert.equal(markets[0]!.closed, 0);
    assert.equal(markets[0]!.has_created, true);
    assert.match(String(markets[0]!.outcome_prices), /^\['0\.\d+', '0\.\d+'\]$/);
    await importsWhole(tape.body);
  });

  it('when a market has more fills than a run reads, then the next runs read the rest though it trades no more, and the run budget carries over', async () => {
    const ctx = testContext();
    const limits = { perMarket: 2, perRun: 3 };
    const m = await makeMarket({ question: `Will the backlog ${randomUUID().slice(0, 6)} clear?` });
    const other = await makeMarket({ question: `Will the budget ${randomUUID().slice(0, 6)} hold?` });
    const agent = await registerAgent({ name: 'tape-backlog' });
    for (const [market, amount] of [
      [m, 20],
      [m, 30],
      [m, 10],
      [other, 15],
    ] as const) {
      const res = await trade(agent, { market_id: market._id, side: 'yes', amount, venue: 'sim' });
      assert.equal(res.body.success, true, JSON.stringify(res.body));
    }
    const cursor = async (id: string) => ctx.deps.models.TapeCursor.findById(`sim:${id}`).lean();
    // Runs until both markets are through; each run also reads whatever the other tests left.
    await recordTapes(ctx.deps, limits);
    // From now on neither market counts as traded since the last run: only their backlog brings them back.
    await ctx.deps.models.Market.updateMany(
      { _id: { $in: [m._id, other._id] } },
      { $set: { lastTradeAt: new Date(Date.now() - 3600_000) } },
    );
    for (let run = 0; run < 10; run++) {
      const [a, b] = [await cursor(m._id), await cursor(other._id)];
      if (a?.seqThrough === 3 && b?.seqThrough === 1 && !a.backlog && !b.backlog) break;
      await recordTapes(ctx.deps, limits);
    }
    const [a, b] = [await cursor(m._id), await cursor(other._id)];
    assert.equal(a?.seqThrough, 3, 'all three fills of the first market recorded');
    assert.equal(b?.seqThrough, 1, 'the fill of the second market recorded');
    assert.equal(a?.backlog, undefined, 'nothing left to read: the mark is gone');
    assert.equal(b?.backlog, undefined);
    const again = await recordTapes(ctx.deps, limits);
    assert.equal((await cursor(m._id))?.seqThrough, 3, 'a run after that reads nothing more of it');
    assert.equal(again.errors.length, 0);
  });

  it('when a market with fills left to read is deleted, then its cursor loses the mark and runs go on without errors', async () => {
    const ctx = testContext();
    const marketId = randomUUID();
    await ctx.deps.models.TapeCursor.create({
      _id: `sim:${marketId}`,
      source: 'sim',
      marketId,
      seqThrough: 2,
      backlog: 'sim',
    });
    const run = await recordTapes(ctx.deps);
    assert.equal(run.errors.length, 0, JSON.stringify(run.errors));
    const cursor = await ctx.deps.models.TapeCursor.findById(`sim:${marketId}`).lean();
    assert.equal(cursor?.backlog, undefined, 'no market to read it under: the mark is gone');
    assert.equal(cursor?.seqThrough, 2, 'what was recorded stays recorded');
  });

  it('writes a market again once it resolves: the tape carries its final prices and closed', async () => {
    const ctx = testContext();
    const word = `heron${randomUUID().slice(0, 6)}`;
    const m = await makeMarket({ question: `Will the ${word} fly?` });
    const agent = await registerAgent({ name: 'tape-resolver' });
    assert.equal(
      (await trade(agent, { market_id: m._id, side: 'no', amount: 10, venue: 'sim' })).body.success,
      true,
    );
    await recordTapes(ctx.deps);
    const resolved = await api()
      .post(`/api/admin/markets/${m._id}/resolve`)
      .set('Authorization', `Bearer ${ctx.operatorToken}`)
      .send({ outcome: true });
    assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
    const run = await recordTapes(ctx.deps);
    assert.ok(run.markets >= 1);
    const tape = await api()
      .post('/api/backtest/tape')
      .set('Authorization', `Bearer ${agent.api_key}`)
      .send({ t0: today(), t1: tomorrow(), min_volume: 0, q: word });
    assert.equal(tape.status, 200, JSON.stringify(tape.body));
    const dirs = tapeDirs(ctx.env.DATA_DIR);
    const [row] = await withDuckDb(async (db) =>
      (
        await db.runAndReadAll(
          `SELECT closed, active, outcome_prices FROM read_parquet('${dirs.slices}/${tape.body.key}/markets.parquet')`,
        )
      ).getRowObjectsJson(),
    );
    assert.deepEqual(row, { closed: 1, active: 0, outcome_prices: "['1', '0']" });
    const [p] = await withDuckDb(async (db) =>
      (
        await db.runAndReadAll(
          `SELECT side, price FROM read_parquet('${dirs.slices}/${tape.body.key}/quant.parquet')`,
        )
      ).getRowObjectsJson(),
    );
    assert.equal(p!.side, 'SELL', 'buying NO is selling YES');
    assert.ok(
      Number(p!.price) < 0.5 && Number(p!.price) > 0.45,
      'at one minus the NO price paid (above 0.5)',
    );
    await importsWhole(tape.body);
  });

  it('records an imported Polymarket market’s public prints from the venue, once, and slices them with the market', async () => {
    const ctx = testContext();
    const agent = await registerAgent({ name: 'tape-venue' });
    const event = await newPolymarketEvent(['Yes', 'No'], [0.42]);
    const imported = await api()
      .post('/api/sdk/markets/import')
      .set('Authorization', `Bearer ${agent.api_key}`)
      .send({ polymarket_url: polymarketEventUrl(event.event_slug) });
    assert.equal(imported.status, 200, JSON.stringify(imported.body));
    const marketId = imported.body.markets[0].market_id as string;
    const conditionId = event.markets[0]!.condition_id;
    for (const yes of [0.45, 0.5, 0.47])
      await polymarketAdmin('POST', `/markets/${conditionId}/price`, { yes });

    // The recorder leaves the last minute for its next run (a venue may still publish a print of
    // that second): run it as if two minutes had passed.
    const later = { ...ctx.deps, clock: () => new Date(Date.now() + 120_000) };
    const first = await recordTapes(later);
    const venuePrints = await ctx.deps.models.TapeCursor.findById(`polymarket:${marketId}`).lean();
    assert.ok(venuePrints?.printsThroughSec, JSON.stringify(first));
    assert.ok(first.prints.polymarket! >= 3, JSON.stringify(first));
    const second = await recordTapes(later);
    assert.equal(second.prints.polymarket ?? 0, 0, 'nothing new on the venue: nothing written');

    const tape = await api()
      .post('/api/backtest/tape')
      .set('Authorization', `Bearer ${agent.api_key}`)
      .send({ t0: today(), t1: tomorrow(), min_volume: 0, q: event.markets[0]!.slug });
    assert.equal(tape.status, 200, JSON.stringify(tape.body));
    assert.equal(tape.body.markets, 1);
    const source = tape.body.sources[0];
    assert.equal(source.source, 'polymarket');
    assert.ok(source.quant_rows >= 3);
    const dirs = tapeDirs(ctx.env.DATA_DIR);
    const rows = await withDuckDb(async (db) =>
      (
        await db.runAndReadAll(
          `SELECT q.market_id, q.condition_id, q.price, q.side, q.transaction_hash, m.token1, m.id
           FROM read_parquet('${dirs.slices}/${tape.body.key}/quant.parquet') q
           JOIN read_parquet('${dirs.slices}/${tape.body.key}/markets.parquet') m ON m.id = q.market_id
           ORDER BY q.timestamp`,
        )
      ).getRowObjectsJson(),
    );
    for (const r of rows) {
      assert.equal(r.market_id, marketId, 'our market id, as agents trade it');
      assert.equal(r.condition_id, conditionId);
      assert.equal(r.token1, event.markets[0]!.token_ids[0]);
      assert.match(String(r.transaction_hash), /^0x[0-9a-f]{64}$/);
      assert.ok(Number(r.price) > 0.4 && Number(r.price) < 0.55, `a YES price near the moves: ${r.price}`);
    }
    await importsWhole(tape.body);
  });

  it('records an imported Kalshi market’s public trades, both takers’ sides, and its tape imports whole', async () => {
    const ctx = testContext();
    const agent = await registerAgent({ name: 'tape-kalshi' });
    const event = await newKalshiEvent([{ yes_sub_title: 'Taped', yes: 0.5 }]);
    const ticker = event.markets[0]!.ticker;
    const imported = await api()
      .post('/api/sdk/markets/import/kalshi')
      .set('Authorization', `Bearer ${agent.api_key}`)
      .send({ kalshi_url: ticker });
    assert.equal(imported.status, 200, JSON.stringify(imported.body));
    // Up is the crowd buying YES, down buying NO: prints of both taker sides.
    for (const yes of [0.58, 0.44, 0.51]) await kalshiAdmin('POST', `/markets/${ticker}/price`, { yes });
    const later = { ...ctx.deps, clock: () => new Date(Date.now() + 120_000) };
    const run = await recordTapes(later);
    assert.ok(run.prints.kalshi! >= 3, JSON.stringify(run));
    const tape = await api()
      .post('/api/backtest/tape')
      .set('Authorization', `Bearer ${agent.api_key}`)
      .send({ t0: today(), t1: tomorrow(), min_volume: 0, q: imported.body.question });
    assert.equal(tape.status, 200, JSON.stringify(tape.body));
    assert.deepEqual(
      tape.body.sources.map((s: { source: string }) => s.source),
      ['kalshi'],
    );
    const sides = await withDuckDb(async (db) =>
      (
        await db.runAndReadAll(
          `SELECT DISTINCT side FROM read_parquet('${tapeDirs(ctx.env.DATA_DIR).slices}/${tape.body.key}/quant.parquet') ORDER BY side`,
        )
      ).getRows(),
    );
    assert.deepEqual(sides.flat(), ['BUY', 'SELL']);
    await importsWhole(tape.body);
  });
});
