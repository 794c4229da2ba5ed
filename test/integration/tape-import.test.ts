import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withDuckDb } from '../../shared/infra/duckdb.js';
import { importTape, TapeImportError } from '../../shared/domains/tapes/import-tape.js';
import { tapeDirs } from '../../shared/domains/tapes/tape-store.js';
import { testContext } from '../support/context.js';
import { api, registerAgent } from '../support/http.js';

const DAY = 86_400;

/**
 * A parquet pair in the published tape schema, as an external dataset would be: three markets
 * (one resolved) and `printsPerMarket` prints each over two days from `startSec`.
 */
async function makeDataset(
  startSec: number,
  prefix: string,
  opts: { millis?: boolean; dropColumn?: string } = {},
) {
  const dir = mkdtempSync(join(tmpdir(), 'dataset-'));
  const markets = join(dir, 'markets.parquet');
  const quant = join(dir, 'quant.parquet');
  await withDuckDb(async (db) => {
    await db.run(
      `COPY (SELECT '${prefix}-' || i AS id, 'Imported question ' || i || '?' AS question, '${prefix}-q-' || i AS slug,
                    '0xcond${prefix}' || i AS condition_id, 'tok' || i || 'a' AS token1, 'tok' || i || 'b' AS token2,
                    'Yes' AS answer1, 'No' AS answer2, (i = 1)::INTEGER AS closed, (i <> 1)::INTEGER AS active, 0 AS archived,
                    CASE WHEN i = 1 THEN '[''1'', ''0'']' ELSE '[''0.5'', ''0.5'']' END AS outcome_prices,
                    5000.0 * i AS volume, 'ev1' AS event_id, 'ev-slug' AS event_slug, 'Event' AS event_title,
                    to_timestamp(${startSec - DAY}) AS created_at, to_timestamp(${startSec + 2 * DAY}) AS end_date,
                    to_timestamp(${startSec}) AS updated_at, 0 AS neg_risk
             FROM range(1, 4) t(i)) TO '${markets}' (FORMAT parquet)`,
    );
    const ts = opts.millis ? `(${startSec} + j * 3600) * 1000` : `${startSec} + j * 3600`;
    await db.run(
      `COPY (SELECT ${opts.dropColumn === 'side' ? '' : "CASE WHEN j % 2 = 0 THEN 'BUY' ELSE 'sell' END AS side,"}
                    (${ts})::UBIGINT AS timestamp, 1000 + j AS block_number, '0xtx' || i || '_' || j AS transaction_hash,
                    j AS log_index, '${prefix}-' || i AS market_id, '0xcond${prefix}' || i AS condition_id, 'ev1' AS event_id,
                    0.3 + j / 100.0 AS price, 10.0 AS usd_amount, 10.0 / (0.3 + j / 100.0) AS token_amount,
                    '0xmaker' AS maker, '0xtaker' AS taker
             FROM range(1, 4) t(i), range(0, 40) s(j)) TO '${quant}' (FORMAT parquet)`,
    );
  });
  return { markets, quant };
}

const coverage = async (key: string) =>
  (await api().get('/api/backtest/tape/coverage').set('Authorization', `Bearer ${key}`)).body as {
    sources: { source: string; prints: number; markets: number; first_day: string; last_day: string }[];
    coverage_t0: string;
  };

describe('tape import #integration', () => {
  it('loads a parquet pair as a source of its own: coverage shows it, a slice serves it, a second import writes nothing', async () => {
    const ctx = testContext();
    const agent = await registerAgent({ name: 'tape-importer' });
    const startSec = Date.UTC(2018, 5, 1) / 1000 + Math.floor(Math.random() * 300) * DAY;
    const source = `dump-${randomUUID().slice(0, 8)}`;
    const files = await makeDataset(startSec, source);
    const before = await coverage(agent.api_key);
    assert.equal(
      before.sources.find((s) => s.source === source),
      undefined,
    );

    const summary = await importTape(tapeDirs(ctx.env.DATA_DIR), source, files.markets, files.quant);
    const day = (sec: number) => new Date(sec * 1000).toISOString().slice(0, 10);
    assert.deepEqual(summary, {
      source,
      markets: 3,
      prints: 120,
      first_day: day(startSec),
      last_day: day(startSec + 39 * 3600),
      orphan_prints: 0,
      already_imported: false,
    });
    const after = await coverage(agent.api_key);
    assert.deepEqual(
      after.sources.find((s) => s.source === source),
      {
        source,
        first_day: day(startSec),
        last_day: day(startSec + 39 * 3600),
        prints: 120,
        markets: 3,
      },
    );
    assert.ok(after.coverage_t0 <= day(startSec));

    const again = await importTape(tapeDirs(ctx.env.DATA_DIR), source, files.markets, files.quant);
    assert.equal(again.already_imported, true);
    assert.equal((await coverage(agent.api_key)).sources.find((s) => s.source === source)?.prints, 120);

    const tape = await api()
      .post('/api/backtest/tape')
      .set('Authorization', `Bearer ${agent.api_key}`)
      .send({ t0: day(startSec), t1: day(startSec + 2 * DAY), q: `${source}-q-`, min_volume: 0 });
    assert.equal(tape.status, 200, JSON.stringify(tape.body));
    assert.equal(tape.body.markets, 3);
    assert.equal(tape.body.quant_rows, 120);
    assert.deepEqual(tape.body.sources, [{ source, markets: 3, quant_rows: 120 }]);
    const slices = tapeDirs(ctx.env.DATA_DIR).slices;
    const [resolved] = await withDuckDb(async (db) =>
      (
        await db.runAndReadAll(
          `SELECT closed, outcome_prices FROM read_parquet('${slices}/${tape.body.key}/markets.parquet') WHERE id = '${source}-1'`,
        )
      ).getRowObjectsJson(),
    );
    assert.deepEqual(resolved, { closed: 1, outcome_prices: "['1', '0']" });
    const sides = await withDuckDb(async (db) =>
      (
        await db.runAndReadAll(
          `SELECT DISTINCT side FROM read_parquet('${slices}/${tape.body.key}/quant.parquet') ORDER BY side`,
        )
      ).getRowObjectsJson(),
    );
    assert.deepEqual(
      sides.map((s) => s.side),
      ['BUY', 'SELL'],
      'sides are normalised to upper case',
    );
  });

  it('refuses files that do not follow the schema, saying what is wrong', async () => {
    const dirs = tapeDirs(testContext().env.DATA_DIR);
    const startSec = Date.UTC(2018, 0, 1) / 1000;
    const millis = await makeDataset(startSec, 'ms', { millis: true });
    await assert.rejects(importTape(dirs, 'bad-ms', millis.markets, millis.quant), (err: Error) => {
      assert.ok(err instanceof TapeImportError);
      assert.match(err.message, /milliseconds/);
      return true;
    });
    const noSide = await makeDataset(startSec, 'ns', { dropColumn: 'side' });
    await assert.rejects(
      importTape(dirs, 'bad-side', noSide.markets, noSide.quant),
      /missing columns: quant\.side/,
    );
    await assert.rejects(importTape(dirs, 'sim', noSide.markets, noSide.quant), /recorder's own/);
    await assert.rejects(importTape(dirs, 'Bad Name', noSide.markets, noSide.quant), /lower-case/);
  });

  it('imports through the service with the operator token (upload, then import)', async () => {
    const ctx = testContext();
    const startSec = Date.UTC(2017, 5, 1) / 1000 + Math.floor(Math.random() * 300) * DAY;
    const source = `remote-${randomUUID().slice(0, 8)}`;
    const files = await makeDataset(startSec, source);
    const uploadId = randomUUID();
    const op = { Authorization: `Bearer ${ctx.operatorToken}` };
    for (const name of ['markets', 'quant'] as const) {
      const put = await api()
        .put(`/api/admin/tapes/uploads/${uploadId}/${name}.parquet`)
        .set(op)
        .set('Content-Type', 'application/octet-stream')
        .send(readFileSync(files[name]));
      assert.equal(put.status, 201, JSON.stringify(put.body));
    }
    const unauth = await api().post('/api/admin/tapes/import').send({ upload_id: uploadId, source });
    assert.equal(unauth.status, 401);
    const res = await api().post('/api/admin/tapes/import').set(op).send({ upload_id: uploadId, source });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.prints, 120);
    assert.equal(res.body.markets, 3);
    const tapes = await api().get('/api/admin/tapes').set(op);
    assert.equal(tapes.body.sources.find((s: { source: string }) => s.source === source)?.prints, 120);
    const gone = await api().post('/api/admin/tapes/import').set(op).send({ upload_id: uploadId, source });
    assert.equal(gone.status, 404, 'an upload is used once');
    const anon = await api()
      .put(`/api/admin/tapes/uploads/${randomUUID()}/quant.parquet`)
      .set('Content-Type', 'application/octet-stream')
      .send(Buffer.from('x'));
    assert.equal(anon.status, 401);
  });
});
