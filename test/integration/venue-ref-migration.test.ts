import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Worker } from 'bullmq';
import type { Express } from 'express';
import mongoose, { type Connection } from 'mongoose';
import request from 'supertest';
import { buildApp } from '../../api/app.js';
import { closeDeps, createDeps } from '../../shared/composition/create-deps.js';
import type { Deps } from '../../shared/composition/deps.js';
import { startWorkers, stopWorkers } from '../../shared/composition/worker-pool.js';
import { generateApiKey, hashApiKey } from '../../shared/domains/agents/api-key.js';
import { migrateStoredDocuments } from '../../shared/composition/migrations.js';
import { createModels } from '../../shared/domains/models.js';
import { venueKey } from '../../shared/domains/markets/venue-key.js';
import { importedBatches } from '../../shared/domains/venue-sync/imported-batches.js';
import { createLogger } from '../../shared/infra/logger.js';
import { QUEUE_NAMES } from '../../shared/infra/queue/queues.js';
import { PROCESSORS } from '../../workers/registry.js';
import { testContext } from '../support/context.js';
import { randomIp } from '../support/http.js';

const { EJSON } = mongoose.mongo.BSON;
type Raw = Record<string, unknown> & { _id: string };
type Fixture = Record<string, Raw[]>;

/** Markets and the documents that refer to them, as the code before the venue reference stored them. */
const FIXTURE = readFileSync(
  new URL('../fixtures/venue-ref/markets-before-venue-ref.json', import.meta.url),
  'utf8',
);
/** When the fixture was dumped: its last stored time. Its markets resolve a week or so after it. */
const RECORDED_AT = Date.parse('2026-11-27T19:35:13Z');
/**
 * Every date of the fixture moves by how long ago it was recorded (one shift for the whole run), so
 * its active markets are as far from resolution as when they were dumped: without it the sim
 * catalogue markets close once their stored `resolvesAt` has passed and the trading tests fail by date.
 */
const SHIFT_MS = Math.max(0, Date.now() - RECORDED_AT);

function shiftDates(value: unknown): unknown {
  if (value instanceof Date) return new Date(value.getTime() + SHIFT_MS);
  if (Array.isArray(value)) return value.map(shiftDates);
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shiftDates(v)]));
  return value;
}

const fixture = () => shiftDates(EJSON.parse(FIXTURE, { relaxed: false })) as Fixture;
const LEGACY = [
  'polymarketId',
  'polymarketTokenId',
  'polymarketNoTokenId',
  'polymarketNegRisk',
  'kalshiTicker',
];

/** What the legacy columns of a market say its venue reference is. */
function expectedRef(old: Raw) {
  if (old.polymarketId)
    return {
      venue: 'polymarket',
      externalId: old.polymarketId,
      yesTokenId: old.polymarketTokenId,
      noTokenId: old.polymarketNoTokenId,
      negRisk: old.polymarketNegRisk,
    };
  if (old.kalshiTicker)
    return {
      venue: 'kalshi',
      externalId: old.kalshiTicker,
      yesTokenId: null,
      noTokenId: null,
      negRisk: null,
    };
  return null;
}

const without = (doc: Raw, keys: string[]) =>
  Object.fromEntries(Object.entries(doc).filter(([k]) => !keys.includes(k)));
const canonical = (v: unknown) => EJSON.stringify(v, { relaxed: false });

async function load(db: Connection, docs: Fixture): Promise<void> {
  for (const [name, rows] of Object.entries(docs))
    if (rows.length) await db.collection(name).insertMany(rows as never[]);
}

/** Every collection of the fixture as stored now, byte for byte (canonical Extended JSON), by `_id`. */
async function snapshot(db: Connection): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const name of Object.keys(fixture()))
    out[name] = (await db.collection(name).find({}).sort({ _id: 1 }).toArray()).map(canonical);
  return out;
}

describe('venue reference migration of stored markets #integration', () => {
  const names: string[] = [];
  let deps: Deps;
  let app: Express;
  let workers: Worker[];
  let migrated: Record<string, string[]>;
  const stored = fixture();
  const oldMarkets = new Map(stored.markets!.map((m) => [m._id, m]));

  /** A database of this run's server that no other test uses, dropped afterwards. */
  const freshDb = () => {
    const name = `${testContext().env.MONGODB_DB}_venueref_${randomBytes(3).toString('hex')}`;
    names.push(name);
    return testContext().deps.mongo.useDb(name, { useCache: false });
  };

  // A service of its own on a database loaded with the fixture: its start-up runs the migration.
  before(async function () {
    this.timeout(60_000);
    const ctx = testContext();
    const db = freshDb();
    await load(db, fixture());
    // The indexes the per-venue columns had.
    await db.collection('markets').createIndex({ polymarketId: 1 });
    await db.collection('markets').createIndex({ kalshiTicker: 1 });
    const env = { ...ctx.env, MONGODB_DB: db.name, QUEUE_PREFIX: `${ctx.env.QUEUE_PREFIX}-venueref` };
    deps = await createDeps(
      env,
      { redisUrl: ctx.redisUrl, mongoUri: ctx.mongoUri },
      createLogger('silent', 'test'),
    );
    migrated = await snapshot(deps.mongo);
    workers = startWorkers(deps, PROCESSORS, [...QUEUE_NAMES]);
    await Promise.all(workers.map((w) => w.waitUntilReady()));
    app = buildApp(deps, { operatorToken: ctx.operatorToken });
  });

  after(async function () {
    this.timeout(60_000);
    await stopWorkers(workers, 5000);
    await Promise.all(
      Object.values(deps.queues.queues).map((q) => q.obliterate({ force: true }).catch(() => undefined)),
    );
    await closeDeps(deps);
    for (const name of names) await testContext().deps.mongo.useDb(name).dropDatabase();
  });

  it('when the service starts on markets stored with per-venue columns, then each market keeps every other field and gains the reference those columns described', () => {
    assert.equal(migrated.markets!.length, stored.markets!.length);
    const venues = new Map<string, number>();
    for (const text of migrated.markets!) {
      const now = EJSON.parse(text, { relaxed: false }) as Raw;
      const old = oldMarkets.get(now._id)!;
      assert.ok(old, `market ${now._id} came from the fixture`);
      assert.equal(canonical(now.venueRef), canonical(expectedRef(old)), now._id);
      for (const column of LEGACY) assert.ok(!(column in now), `${column} is gone from ${now._id}`);
      assert.equal(canonical(without(now, ['venueRef'])), canonical(without(old, LEGACY)), now._id);
      venues.set(old.importSource as string, (venues.get(old.importSource as string) ?? 0) + 1);
    }
    assert.deepEqual(Object.fromEntries(venues), { sim: 4, polymarket: 5, kalshi: 3 });
  });

  it('when the markets are migrated, then the indexes of the old columns are gone and the reference is indexed', async () => {
    const keys = (await deps.mongo.collection('markets').indexes()).map((i) => JSON.stringify(i.key));
    assert.ok(!keys.includes('{"polymarketId":1}'), keys.join(' '));
    assert.ok(!keys.includes('{"kalshiTicker":1}'), keys.join(' '));
    assert.ok(keys.includes('{"venueRef.venue":1,"venueRef.externalId":1}'), keys.join(' '));
  });

  it('when the markets are migrated, then every document that refers to them is exactly as it was', () => {
    for (const [name, rows] of Object.entries(stored)) {
      if (name === 'markets') continue;
      assert.deepEqual(migrated[name], rows.map(canonical), name);
    }
  });

  it('when the migration runs again, alone or twice at once, then it changes nothing, byte for byte', async () => {
    await migrateStoredDocuments(deps.models, deps.log);
    await Promise.all([
      migrateStoredDocuments(deps.models, deps.log),
      migrateStoredDocuments(deps.models, deps.log),
    ]);
    const again = await snapshot(deps.mongo);
    for (const name of Object.keys(stored)) assert.deepEqual(again[name], migrated[name], name);
  });

  it('when a migration was killed half-way, then the next start finishes it with the same documents as a run in one go', async () => {
    const db = freshDb();
    const models = createModels(db);
    const markets = fixture().markets!;
    const half = Math.ceil(markets.length / 2);
    // The first half stands for the markets the killed run had already rewritten.
    await load(db, { markets: markets.slice(0, half) });
    await migrateStoredDocuments(models, deps.log);
    await load(db, { markets: markets.slice(half) });
    await migrateStoredDocuments(models, deps.log);
    const resumed = (await db.collection('markets').find({}).sort({ _id: 1 }).toArray()).map(canonical);
    assert.deepEqual(resumed, migrated.markets);
  });

  it('when the migrated markets are read, then the API answers with the same venue ids as before', async () => {
    const key = await newAgentKey();
    for (const old of oldMarkets.values()) {
      const res = await request(app).get(`/api/sdk/markets/${old._id}`).set(auth(key)).expect(200);
      const m = res.body.market;
      assert.equal(m.id, old._id);
      assert.equal(m.polymarket_id, old.polymarketId);
      assert.equal(m.polymarket_token_id, old.polymarketTokenId);
      assert.equal(m.polymarket_no_token_id, old.polymarketNoTokenId);
      assert.equal(m.polymarket_neg_risk, old.polymarketNegRisk ?? false);
      assert.equal(m.kalshi_ticker, old.kalshiTicker);
    }
  });

  it('when a migrated market is looked up by its venue id (check, re-import, venue sync), then it is found', async () => {
    const key = await newAgentKey();
    const polymarket = [...oldMarkets.values()].filter((m) => m.polymarketId);
    const kalshi = [...oldMarkets.values()].filter((m) => m.kalshiTicker);
    for (const old of polymarket) {
      const check = await request(app)
        .get(`/api/sdk/markets/check?condition_id=${old.polymarketId as string}`)
        .set(auth(key))
        .expect(200);
      assert.equal(check.body.exists, true);
      assert.equal(check.body.market_id, old._id);
    }
    for (const old of kalshi) {
      const check = await request(app)
        .get(`/api/sdk/markets/check?ticker=${old.kalshiTicker as string}`)
        .set(auth(key))
        .expect(200);
      assert.ok(check.body.markets.some((m: { market_id: string }) => m.market_id === old._id));
    }

    // Markets already here are answered from the database, without asking the venue.
    const binary = polymarket.find((m) => m.status === 'active' && !m.polymarketNegRisk)!;
    const again = await request(app)
      .post('/api/sdk/markets/import')
      .set(auth(key))
      .send({ polymarket_url: `https://polymarket.com/market/${binary.venueSlug as string}` })
      .expect(200);
    assert.equal(again.body.status, 'already_exists', JSON.stringify(again.body));
    assert.equal(again.body.market_id, binary._id);
    assert.equal(again.body.polymarket_id, binary.polymarketId);
    const ticker = kalshi[0]!;
    const kalshiAgain = await request(app)
      .post('/api/sdk/markets/import/kalshi')
      .set(auth(key))
      .send({ kalshi_url: ticker.kalshiTicker })
      .expect(200);
    assert.equal(kalshiAgain.body.status, 'already_exists', JSON.stringify(kalshiAgain.body));
    assert.equal(kalshiAgain.body.market_id, ticker._id);
    assert.equal(kalshiAgain.body.kalshi_ticker, ticker.kalshiTicker);

    for (const venue of ['polymarket', 'kalshi'] as const) {
      const synced = new Map<string, unknown>();
      for await (const batch of importedBatches(deps.models, venue, ['active', 'closed', 'resolved']))
        for (const m of batch) synced.set(m._id, venueKey(m));
      const expected = [...oldMarkets.values()].filter((m) => m.importSource === venue);
      assert.equal(synced.size, expected.length, venue);
      for (const old of expected) {
        const key = synced.get(old._id) as { externalId: string; yesTokenId: unknown; noTokenId: unknown };
        const ref = expectedRef(old)!;
        assert.deepEqual(
          [key.externalId, key.yesTokenId, key.noTokenId],
          [ref.externalId, ref.yesTokenId, ref.noTokenId],
        );
      }
    }
  });

  it('when every active migrated market is traded on sim, then it fills on top of its stored book and history', async () => {
    const key = await newAgentKey();
    for (const old of [...oldMarkets.values()].filter((m) => m.status === 'active')) {
      const events = stored.market_events!.filter((e) => e.marketId === old._id);
      const res = await request(app)
        .post('/api/sdk/trade')
        .set(auth(key))
        .send({ market_id: old._id, side: 'yes', amount: 5 })
        .expect(200);
      assert.equal(res.body.success, true, JSON.stringify(res.body));
      const fill = await deps.models.MarketEvent.findOne({ marketId: old._id, kind: 'fill' })
        .sort({ seq: -1 })
        .lean();
      assert.equal(
        fill!.seq,
        (old.book as { version: number }).version + 1,
        'the log goes on from the stored book',
      );
      assert.equal(fill!.seq, events.length + 1, 'after every stored event');
      const history = await request(app).get(`/api/markets/${old._id}/history`).expect(200);
      assert.ok(history.body.trades.length >= 1);
    }
  });

  it('when an agent of the fixture reads its positions and sells, then its stored positions carry the venue ids and trade on', async () => {
    const simTrade = stored.trades!.find(
      (t) => t.venue === 'sim' && oldMarkets.get(t.marketId as string)?.polymarketId,
    )!;
    const agentId = simTrade.agentId as string;
    const key = generateApiKey();
    await deps.models.Agent.updateOne({ _id: agentId }, { $set: { apiKeyHash: hashApiKey(key) } });
    const res = await request(app).get('/api/sdk/positions').set(auth(key)).expect(200);
    const rows = res.body.positions as {
      market_id: string;
      condition_id: string | null;
      token_id_yes: string | null;
      token_id_no: string | null;
      shares_yes: number;
      shares_no: number;
    }[];
    const held = stored.positions!.filter(
      (p) =>
        p.agentId === agentId &&
        p.venue === 'sim' &&
        oldMarkets.get(p.marketId as string)!.status === 'active',
    );
    assert.ok(held.length >= 3, `${held.length} open positions`);
    for (const p of held) {
      const old = oldMarkets.get(p.marketId as string)!;
      const row = rows.find((r) => r.market_id === p.marketId);
      assert.ok(row, `the position on ${old._id} is listed`);
      assert.equal(row.condition_id, old.polymarketId, old._id);
      assert.equal(row.token_id_yes, old.polymarketTokenId, old._id);
      assert.equal(row.token_id_no, old.polymarketNoTokenId, old._id);
    }
    const market = oldMarkets.get(simTrade.marketId as string)!;
    const row = rows.find((r) => r.market_id === market._id)!;
    assert.ok(row, 'the position on the imported market is listed');
    const side = row.shares_yes > 0 ? 'yes' : 'no';
    const sold = await request(app)
      .post('/api/sdk/trade')
      .set(auth(key))
      .send({ market_id: market._id, side, action: 'sell', shares: 1 })
      .expect(200);
    assert.equal(sold.body.success, true, JSON.stringify(sold.body));
  });

  const auth = (key: string) => ({ Authorization: `Bearer ${key}` });

  async function newAgentKey(): Promise<string> {
    const res = await request(app)
      .post('/api/sdk/agents/register')
      .set('X-Forwarded-For', randomIp())
      .send({ name: 'venue-ref' })
      .expect(200);
    return res.body.api_key as string;
  }
});
