import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { buildApp } from '../../api/app.js';
import { withDuckDb } from '../../shared/infra/duckdb.js';
import type { TapeMarketRow, TapePrintRow } from '../../shared/domains/tapes/tape-columns.js';
import { tapeMarketRow, tapePrintRow } from '../support/tape-rows.js';
import { tapeKey } from '../../shared/domains/tapes/tape-secret.js';
import { appendMarkets, appendPrints, tapeDirs } from '../../shared/domains/tapes/tape-store.js';
import { signTapeUrl } from '../../shared/domains/tapes/tape-urls.js';
import { cutTape } from '../../shared/domains/tapes/slice-tape.js';
import { testContext } from '../support/context.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';

const DAY = 86_400;

/** A past day of its own per test (the store is shared by the whole run). */
function freshDay(): { day: string; startSec: number } {
  const startSec = Date.UTC(2019, 0, 1) / 1000 + Math.floor(Math.random() * 2000) * DAY;
  return { day: new Date(startSec * 1000).toISOString().slice(0, 10), startSec };
}
const dayAfter = (startSec: number) => new Date((startSec + DAY) * 1000).toISOString().slice(0, 10);

const market = (
  source: string,
  id: string,
  question: string,
  volume: number,
  createdSec: number,
): TapeMarketRow =>
  tapeMarketRow({
    source,
    id,
    question,
    slug: question.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
    volume,
    created_at: new Date(createdSec * 1000).toISOString(),
    end_date: new Date((createdSec + 30 * DAY) * 1000).toISOString(),
  });

const print = (source: string, marketId: string, timestamp: number, n: number): TapePrintRow =>
  tapePrintRow({
    source,
    print_id: `${marketId}-${timestamp}-${n}`,
    timestamp,
    market_id: marketId,
    price: 0.4 + n / 100,
    usd_amount: 10,
    token_amount: 25,
    side: n % 2 ? 'SELL' : 'BUY',
  });

/**
 * Five markets of one source on a fresh day: volumes 500…4500, two of them about bitcoin, three
 * prints each inside the day and one on the next day.
 */
async function seedDay() {
  const { day, startSec } = freshDay();
  const source = `test-${randomUUID().slice(0, 8)}`;
  const ids = [500, 1500, 2500, 3500, 4500].map((v) => ({ id: `${source}-m${v}`, volume: v }));
  const dirs = tapeDirs(testContext().env.DATA_DIR);
  await appendMarkets(
    dirs,
    source,
    ids.map(({ id, volume }, i) =>
      market(source, id, `${i % 2 ? 'Bitcoin' : 'Election'} question ${id}?`, volume, startSec - DAY),
    ),
  );
  await appendPrints(
    dirs,
    source,
    ids.flatMap(({ id }) => [
      print(source, id, startSec + 60, 1),
      print(source, id, startSec + 120, 2),
      print(source, id, startSec + 3600, 3),
      print(source, id, startSec + DAY + 60, 4),
    ]),
  );
  return { day, next: dayAfter(startSec), startSec, source, ids };
}

const askTape = (agent: RegisteredAgent, body: Record<string, unknown>) =>
  api().post('/api/backtest/tape').set('Authorization', `Bearer ${agent.api_key}`).send(body);

/** Downloads a signed URL without authentication, into a temp file. */
async function download(url: string): Promise<string> {
  const path = new URL(url);
  const res = await api()
    .get(`${path.pathname}${path.search}`)
    .buffer(true)
    .parse((r, done) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => done(null, Buffer.concat(chunks)));
    });
  assert.equal(res.status, 200, `download ${path.pathname}`);
  const file = join(mkdtempSync(join(tmpdir(), 'tape-')), path.pathname.split('/').pop()!);
  writeFileSync(file, res.body as Buffer);
  return file;
}

const rows = (file: string, sql: string) =>
  withDuckDb(async (db) => (await db.runAndReadAll(sql.replace('$f', `'${file}'`))).getRowObjectsJson());

describe('backtest tapes #integration', () => {
  let agent: RegisteredAgent;
  before(async () => {
    agent = await registerAgent({ name: 'tape-reader' });
  });

  it('cuts a window: the volume floor, the cap by volume, q before the cap, and the flags that say so', async () => {
    const s = await seedDay();
    const res = await askTape(agent, { t0: s.day, t1: s.next, max_markets: 2, min_volume: 1000 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.markets_matching_filter, 4, 'the 500-volume market is under the floor');
    assert.equal(res.body.markets_served, 2);
    assert.equal(res.body.markets, 2);
    assert.equal(res.body.max_markets_served, 2);
    assert.equal(res.body.markets_requested, 2);
    assert.equal(res.body.truncated, true);
    assert.equal(
      res.body.quant_rows,
      6,
      'three prints in the window for each served market, none of the next day',
    );
    assert.equal(res.body.cached, false);
    assert.match(res.body.key, /^[0-9a-f]{32}$/);
    assert.equal(res.body.t0, s.day);
    assert.equal(res.body.t1, s.next);

    const markets = await download(res.body.urls.markets);
    const served = await rows(
      markets,
      'SELECT id, volume, closed, created_at FROM read_parquet($f) ORDER BY volume DESC',
    );
    assert.deepEqual(
      served.map((r) => r.id),
      [`${s.source}-m4500`, `${s.source}-m3500`],
      'the largest by volume',
    );
    const quant = await download(res.body.urls.quant);
    const types = await rows(quant, 'DESCRIBE SELECT * FROM read_parquet($f)');
    const typeOf = Object.fromEntries(types.map((t) => [t.column_name, t.column_type]));
    assert.equal(typeOf.timestamp, 'UBIGINT', 'Unix seconds, as the client reads them');
    assert.equal(typeOf.price, 'DOUBLE');
    assert.equal(typeOf.print_id, undefined, 'the store’s dedupe key is not published');
    const printed = await rows(
      quant,
      'SELECT count(*) AS n, min(timestamp) AS lo, max(timestamp) AS hi FROM read_parquet($f)',
    );
    assert.equal(Number(printed[0]!.n), 6);
    assert.ok(Number(printed[0]!.lo) >= s.startSec && Number(printed[0]!.hi) < s.startSec + DAY);
    const manifest = JSON.parse(
      (await api().get(new URL(res.body.urls.manifest).pathname + new URL(res.body.urls.manifest).search))
        .text,
    );
    assert.equal(manifest.markets, 2);
    assert.equal(manifest.quant_rows, 6);
    assert.equal(manifest.dataset_rev, res.body.dataset_rev);

    const bitcoin = await askTape(agent, {
      t0: s.day,
      t1: s.next,
      max_markets: 5,
      min_volume: 0,
      q: 'BITCOIN',
    });
    assert.equal(bitcoin.status, 200);
    assert.equal(
      bitcoin.body.markets_matching_filter,
      2,
      'q is a case-insensitive substring, before the cap',
    );
    assert.equal(bitcoin.body.truncated, false);
    assert.notEqual(bitcoin.body.key, res.body.key);
  });

  it('answers the same request with the same key, free and from the built tape', async () => {
    const s = await seedDay();
    const agent = await registerAgent({ name: 'tape-cacher' });
    const body = { t0: s.day, t1: s.next, max_markets: 300, min_volume: 1000 };
    const first = await askTape(agent, body);
    const again = await askTape(agent, body);
    assert.equal(first.status, 200);
    assert.equal(again.body.key, first.body.key);
    assert.equal(again.body.cached, true);
    assert.equal(again.body.dataset_rev, first.body.dataset_rev);
    // New prints on that day make a new revision, so a client's cache by key cannot serve stale data.
    await appendPrints(tapeDirs(testContext().env.DATA_DIR), s.source, [
      print(s.source, s.ids[4]!.id, s.startSec + 7200, 9),
    ]);
    const later = await askTape(agent, body);
    assert.notEqual(later.body.key, first.body.key);
    assert.equal(later.body.quant_rows, first.body.quant_rows + 1);
  });

  it('builds two identical requests sent at once only once', async () => {
    const s = await seedDay();
    const agent = await registerAgent({ name: 'tape-twins' });
    const body = { t0: s.day, t1: s.next, max_markets: 300, min_volume: 0 };
    const [a, b] = await Promise.all([askTape(agent, body), askTape(agent, body)]);
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    assert.equal(a.body.key, b.body.key);
    const queue = testContext().deps.queues.queues.tapes;
    const jobs = (await queue.getJobs(['completed', 'failed', 'active', 'waiting'])).filter(
      (j) => j.name === 'slice-tape' && (j.data as { key: string }).key === a.body.key,
    );
    assert.equal(jobs.length, 1, 'one cut for both');
  });

  it('serves the files by signed URL only: Range works, an expired or edited URL answers 403', async () => {
    const s = await seedDay();
    const agent = await registerAgent({ name: 'tape-downloader' });
    const res = await askTape(agent, { t0: s.day, t1: s.next, max_markets: 300, min_volume: 0 });
    const url = new URL(res.body.urls.quant);
    const ranged = await api()
      .get(url.pathname + url.search)
      .set('Range', 'bytes=0-3');
    assert.equal(ranged.status, 206);
    assert.match(String(ranged.headers['content-range']), /^bytes 0-3\//);

    const secret = tapeKey(testContext().env, 'tape-urls');
    const expired = new URL(
      signTapeUrl(secret, 'http://x', res.body.key, 'quant.parquet', Math.floor(Date.now() / 1000) - 1),
    );
    const gone = await api().get(expired.pathname + expired.search);
    assert.equal(gone.status, 403);
    assert.equal(gone.body.error_code, 'url_expired');
    assert.match(gone.body.detail, /expired/);
    assert.ok(gone.body.fix);

    const edited = url.search.replace(/sig=./, (m) => (m.endsWith('A') ? 'sig=B' : 'sig=A'));
    assert.equal((await api().get(url.pathname + edited)).status, 403);
    const otherFile = url.pathname.replace('quant.parquet', 'markets.parquet') + url.search;
    assert.equal((await api().get(otherFile)).status, 403, 'a signature names its file');
    const later = url.search.replace(/expires=(\d+)/, (_m, e: string) => `expires=${Number(e) + 3600}`);
    assert.equal((await api().get(url.pathname + later)).status, 403, 'a signature names its expiry');
    assert.equal((await api().get(url.pathname)).status, 403, 'no signature');
  });

  it('refuses bad windows with 422 and a string detail, and a spent quota with 429 and Retry-After', async () => {
    const s = await seedDay();
    const bad = async (body: Record<string, unknown>, pattern: RegExp) => {
      const res = await askTape(agent, { max_markets: 10, min_volume: 0, ...body });
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(typeof res.body.detail, 'string');
      assert.match(res.body.detail, pattern);
      assert.ok(res.body.fix);
    };
    await bad({ t0: s.next, t1: s.day }, /not after t0/);
    await bad({ t0: s.day, t1: s.day }, /not after t0/);
    await bad({ t0: '2019-01-01', t1: '2024-01-01' }, /longer than/);
    await bad({ t0: '2099-01-01', t1: '2099-01-02' }, /past what tapes cover/);
    await bad({ t0: 'yesterday', t1: s.next }, /not an ISO date/);
    await bad({ t0: '0001-01-01', t1: s.next }, /outside the years/);
    await bad({ t0: s.day, t1: '+275760-09-13T00:00:00Z' }, /outside the years/);

    const hasty = await registerAgent({ name: 'tape-hasty' });
    const limit = testContext().env.TAPE_REQUESTS_PER_MINUTE;
    for (let i = 0; i < limit; i++) {
      const ok = await askTape(hasty, { t0: s.day, t1: s.next, max_markets: 300, min_volume: 1 + i });
      assert.equal(ok.status, 200);
    }
    const refused = await askTape(hasty, { t0: s.day, t1: s.next, max_markets: 300, min_volume: 999 });
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    assert.equal(typeof refused.body.detail, 'string');
    const cached = await askTape(hasty, { t0: s.day, t1: s.next, max_markets: 300, min_volume: 1 });
    assert.equal(cached.status, 200, 'a tape already built is free');
    assert.equal(cached.body.cached, true);
  });

  it('answers 503 with a string detail when the tape store cannot be read', async () => {
    const ctx = testContext();
    const dataDir = mkdtempSync(join(tmpdir(), 'tape-broken-'));
    writeFileSync(join(dataDir, 'tapes'), 'not a folder');
    // The master key the URLs are signed with lives in the data directory: the broken one gets its own.
    const deps = { ...ctx.deps, env: { ...ctx.env, DATA_DIR: dataDir } };
    const app = buildApp(deps, { operatorToken: ctx.operatorToken });
    const res = await request(app)
      .post('/api/backtest/tape')
      .set('Authorization', `Bearer ${agent.api_key}`)
      .send({ t0: '2020-01-01', t1: '2020-01-02' });
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.equal(typeof res.body.detail, 'string');
    assert.ok(res.body.fix);
    const coverage = await request(app)
      .get('/api/backtest/tape/coverage')
      .set('Authorization', `Bearer ${agent.api_key}`);
    assert.equal(coverage.status, 503);
  });

  it('reports coverage: the days, prints and markets by source', async () => {
    const s = await seedDay();
    const res = await api()
      .get('/api/backtest/tape/coverage')
      .set('Authorization', `Bearer ${agent.api_key}`);
    assert.equal(res.status, 200);
    assert.match(res.body.coverage_t1, /^\d{4}-\d{2}-\d{2}$/);
    assert.ok(res.body.coverage_t0 <= s.day);
    const mine = res.body.sources.find((x: { source: string }) => x.source === s.source);
    assert.deepEqual(mine, { source: s.source, first_day: s.day, last_day: s.next, prints: 20, markets: 5 });
    assert.equal((await api().get('/api/backtest/tape/coverage')).status, 401);
  });

  it('answers a window without prints with an empty tape (200, 0 markets), free of the quota', async () => {
    const agent = await registerAgent({ name: 'tape-empty' });
    const limit = testContext().env.TAPE_REQUESTS_PER_MINUTE;
    // Days of 2009: no test writes prints there.
    const firstDay = Date.UTC(2009, 0, 1) / 1000 + Math.floor(Math.random() * 300) * DAY;
    for (let i = 0; i <= limit; i++) {
      const startSec = firstDay + i * DAY;
      const res = await askTape(agent, {
        t0: new Date(startSec * 1000).toISOString().slice(0, 10),
        t1: dayAfter(startSec),
        max_markets: 10,
        min_volume: 0,
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.markets, 0);
      assert.equal(res.body.quant_rows, 0);
      assert.equal(res.body.cached, false);
      assert.deepEqual(res.body.sources, []);
      if (i === 0) {
        const quant = await download(res.body.urls.quant);
        const columns = await rows(quant, 'DESCRIBE SELECT * FROM read_parquet($f)');
        assert.ok(
          columns.some((c) => c.column_name === 'timestamp' && c.column_type === 'UBIGINT'),
          'the empty tape has the columns the client reads',
        );
        assert.equal(Number((await rows(quant, 'SELECT count(*) AS n FROM read_parquet($f)'))[0]!.n), 0);
      }
    }
    const s = await seedDay();
    const real = await askTape(agent, { t0: s.day, t1: s.next, max_markets: 10, min_volume: 0 });
    assert.equal(real.status, 200, 'the empty tapes spent no point');
  });

  it('cuts an empty tape from a store with no file at all, q bound as a value', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tape-empty-store-'));
    const manifest = await cutTape(
      { DATA_DIR: dataDir, TAPE_MAX_PRINTS: 1000 },
      {
        key: '0'.repeat(32),
        datasetRev: '0'.repeat(16),
        t0: '2020-01-01',
        t1: '2020-01-02',
        startSec: Date.UTC(2020, 0, 1) / 1000,
        endSec: Date.UTC(2020, 0, 2) / 1000,
        maxMarkets: 10,
        minVolume: 0,
        // The worker binds q as a value: a NUL or a quote reaching it (the API refuses the first) is text.
        q: "it's a\u0000",
        marketFiles: [],
        printFiles: [],
      },
      new Date(),
    );
    assert.equal(manifest.markets, 0);
    assert.equal(manifest.quant_rows, 0);
  });

  it('refuses a q with control characters with a 422 (never SQL text), and q is matched as plain text', async () => {
    const agent = await registerAgent({ name: 'tape-q' });
    const s = await seedDay();
    for (const q of ['a\u0000', 'bit\ncoin', '\u001b[31m', 'x\ud800']) {
      const res = await askTape(agent, { t0: s.day, t1: s.next, max_markets: 10, min_volume: 0, q });
      assert.equal(res.status, 422, `${JSON.stringify(q)}: ${JSON.stringify(res.body)}`);
      assert.deepEqual(res.body.detail[0].loc, ['body', 'q']);
      assert.match(res.body.error, /control characters/);
      assert.ok(res.body.fix);
    }
    // Quotes and SQL are just text to look for.
    for (const q of ["bitcoin' OR '1'='1", "'; DROP TABLE markets; --", '%', '\\']) {
      const res = await askTape(agent, { t0: s.day, t1: s.next, max_markets: 10, min_volume: 0, q });
      assert.equal(res.status, 200, `${q}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.markets, 0, q);
    }
  });

  it('answers a cut the store fails with 500 for a damaged file and 503 for a file gone, giving the point back', async () => {
    const agent = await registerAgent({ name: 'tape-failing' });
    const dirs = tapeDirs(testContext().env.DATA_DIR);
    const limit = testContext().env.TAPE_REQUESTS_PER_MINUTE;
    // Days of 2008, in sources of their own, removed afterwards: no other test reads them.
    const startSec = Date.UTC(2008, 0, 1) / 1000 + Math.floor(Math.random() * 300) * DAY;
    const window = { t0: new Date(startSec * 1000).toISOString().slice(0, 10), t1: dayAfter(startSec) };
    const dayFolder = (source: string) => {
      const dir = join(dirs.store, source, 'prints', window.t0);
      mkdirSync(dir, { recursive: true });
      return join(dirs.store, source);
    };
    const damagedSource = dayFolder(`damaged-${randomUUID().slice(0, 8)}`);
    writeFileSync(join(damagedSource, 'prints', window.t0, 'batch.parquet'), 'not a parquet file');
    try {
      for (let i = 0; i <= limit; i++) {
        const res = await askTape(agent, { ...window, max_markets: 10, min_volume: 0 });
        assert.equal(res.status, 500, JSON.stringify(res.body));
        assert.equal(res.body.error_code, 'tape_cut_failed');
        assert.equal(res.body.retryable, false);
        assert.equal(res.headers['retry-after'], undefined, 'not a retryable outage');
        assert.doesNotMatch(JSON.stringify(res.body), /Error:|read_parquet/, 'no engine text in the answer');
      }
    } finally {
      rmSync(damagedSource, { recursive: true, force: true });
    }
    const goneSource = dayFolder(`gone-${randomUUID().slice(0, 8)}`);
    symlinkSync(join(goneSource, 'nowhere.parquet'), join(goneSource, 'prints', window.t0, 'batch.parquet'));
    try {
      for (let i = 0; i <= limit; i++) {
        const res = await askTape(agent, { ...window, max_markets: 10, min_volume: 0 });
        assert.equal(res.status, 503, JSON.stringify(res.body));
        assert.equal(res.headers['retry-after'], '2');
      }
    } finally {
      rmSync(goneSource, { recursive: true, force: true });
    }
  });

  it('when a store outage ends, then the same request asked again (as its 503 says) cuts again and answers the tape', async () => {
    const agent = await registerAgent({ name: 'tape-outage-ends' });
    const { day, next, source } = await seedDay();
    const dayDir = join(tapeDirs(testContext().env.DATA_DIR).store, source, 'prints', day);
    const file = readdirSync(dayDir).find((f) => f.endsWith('.parquet'));
    assert.ok(file, `a print file in ${dayDir}`);
    const away = join(mkdtempSync(join(tmpdir(), 'tape-away-')), file);
    // The file's name stays in the store (so the request is the same tape); its bytes are away.
    renameSync(join(dayDir, file), away);
    symlinkSync(`${away}.moved`, join(dayDir, file));
    const body = { t0: day, t1: next, max_markets: 10, min_volume: 0 };
    const during = await askTape(agent, body);
    assert.equal(during.status, 503, JSON.stringify(during.body));
    assert.equal(during.headers['retry-after'], '2');
    renameSync(away, `${away}.moved`);
    const after = await askTape(agent, body);
    assert.equal(after.status, 200, JSON.stringify(after.body));
    assert.equal(after.body.markets, 5);
  });
});
