import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withDuckDb } from '../../shared/infra/duckdb.js';
import { importTape, TapeImportError } from '../../shared/domains/tapes/import-tape.js';
import { listStoreFiles, tapeDirs } from '../../shared/domains/tapes/tape-store.js';
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

/** The sample tape of scripts/make-sample-tape.ts (the same bytes every run), and its quant file's bytes. */
async function sampleTape() {
  const { writeSampleTape } = await import('../../scripts/make-sample-tape.js');
  const dir = mkdtempSync(join(tmpdir(), 'sample-tape-'));
  await writeSampleTape(dir, '2016-03-04', 3);
  return { markets: join(dir, 'markets.parquet'), quant: join(dir, 'quant.parquet') };
}

/** Where a column's chunk lies in a parquet file (its first page to its last byte). */
async function columnChunk(file: string, column: string) {
  const [chunk] = await withDuckDb(async (db) =>
    (
      await db.runAndReadAll(
        `SELECT coalesce(dictionary_page_offset, data_page_offset) AS start, total_compressed_size AS size
         FROM parquet_metadata('${file}') WHERE path_in_schema = '${column}'`,
      )
    ).getRowObjectsJson(),
  );
  return { start: Number(chunk!.start), size: Number(chunk!.size) };
}

/** A copy of `file` with `bytes` written over it at `offset`. */
function damaged(file: string, offset: number, bytes: Buffer): string {
  const copy = Buffer.from(readFileSync(file));
  bytes.copy(copy, offset);
  const out = join(mkdtempSync(join(tmpdir(), 'damaged-')), 'quant.parquet');
  writeFileSync(out, copy);
  return out;
}

const operator = () => ({ Authorization: `Bearer ${testContext().operatorToken}` });

/** PUTs both files of an upload; answers its id. */
async function upload(files: { markets: string; quant: string }) {
  const uploadId = randomUUID();
  for (const name of ['markets', 'quant'] as const) {
    const put = await api()
      .put(`/api/admin/tapes/uploads/${uploadId}/${name}.parquet`)
      .set(operator())
      .set('Content-Type', 'application/octet-stream')
      .send(readFileSync(files[name]));
    assert.equal(put.status, 201, JSON.stringify(put.body));
  }
  return uploadId;
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

  it('refuses a damaged file with a 422 naming the file and the reason, and nothing of it reaches the store', async () => {
    const ctx = testContext();
    const dirs = tapeDirs(ctx.env.DATA_DIR);
    const sample = await sampleTape();
    // A page in the middle of a column chunk that does not decompress: the footer still parses.
    const hashes = await columnChunk(sample.quant, 'transaction_hash');
    const brokenPage = damaged(sample.quant, hashes.start + hashes.size / 2, Buffer.alloc(16, 0xff));
    // A value the file's own footer rules out: one token_amount of an uncompressed copy turned into 1e12.
    const plain = join(mkdtempSync(join(tmpdir(), 'plain-')), 'quant.parquet');
    await withDuckDb((db) =>
      db.run(
        `COPY (SELECT * FROM read_parquet('${sample.quant}')) TO '${plain}' (FORMAT parquet, COMPRESSION uncompressed)`,
      ),
    );
    const [first] = await withDuckDb(async (db) =>
      (await db.runAndReadAll(`SELECT token_amount FROM read_parquet('${plain}') LIMIT 1`)).getRows(),
    );
    const value = Buffer.alloc(8);
    value.writeDoubleLE(Number(first![0]));
    const huge = Buffer.alloc(8);
    huge.writeDoubleLE(1e12);
    const outOfRange = damaged(plain, readFileSync(plain).indexOf(value), huge);
    // A column the tape schema does not use is read too.
    const withNote = join(mkdtempSync(join(tmpdir(), 'note-')), 'quant.parquet');
    await withDuckDb((db) =>
      db.run(
        `COPY (SELECT *, 'note ' || md5(transaction_hash) AS note FROM read_parquet('${sample.quant}')) TO '${withNote}' (FORMAT parquet)`,
      ),
    );
    const notes = await columnChunk(withNote, 'note');
    const brokenNote = damaged(withNote, notes.start + notes.size / 2, Buffer.alloc(16, 0xff));
    // A file cut short: no footer at all.
    const cutShort = join(mkdtempSync(join(tmpdir(), 'short-')), 'quant.parquet');
    writeFileSync(cutShort, readFileSync(sample.quant).subarray(0, 5000));

    for (const [quant, reason] of [
      // First the two the import took whole before (into the store), then the two it answered 500 or 422.
      [
        outOfRange,
        /column token_amount holds values from .* to 1000000000000\.0 where the file's footer says/,
      ],
      [brokenNote, /Snappy|decompress|string encoding/],
      [brokenPage, /Snappy|decompress|string encoding/],
      [cutShort, /magic bytes|footer|Invalid/],
    ] as const) {
      const source = `damaged-${randomUUID().slice(0, 8)}`;
      const uploadId = await upload({ markets: sample.markets, quant });
      const res = await api()
        .post('/api/admin/tapes/import')
        .set(operator())
        .send({ upload_id: uploadId, source });
      assert.equal(res.status, 422, `${quant}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error_code, 'invalid_tape');
      assert.match(res.body.detail, /^quant\.parquet cannot be read: /);
      assert.match(res.body.detail, reason);
      assert.doesNotMatch(res.body.detail, new RegExp(dirs.root), 'no path of the service in the answer');
      assert.ok(res.body.fix);
      assert.equal(existsSync(join(dirs.store, source)), false, 'nothing of the file in the store');
      assert.deepEqual(
        listStoreFiles(dirs).prints.filter((p) => p.source === source),
        [],
      );
      assert.equal(existsSync(join(dirs.uploads, uploadId)), false, 'the upload is removed');
    }
    const fine = `sample-${randomUUID().slice(0, 8)}`;
    const ok = await api()
      .post('/api/admin/tapes/import')
      .set(operator())
      .send({ upload_id: await upload(sample), source: fine });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.markets, 6, 'the undamaged pair imports');
  });

  it('records each upload in the operator audit trail, takes only the ids the import takes, and sweeps uploads never imported', async () => {
    const ctx = testContext();
    const dirs = tapeDirs(ctx.env.DATA_DIR);
    const sample = await sampleTape();
    const uploadId = randomUUID();
    const put = await api()
      .put(`/api/admin/tapes/uploads/${uploadId}/quant.parquet`)
      .set(operator())
      .set('Content-Type', 'application/octet-stream')
      .send(readFileSync(sample.quant));
    assert.equal(put.status, 201);
    const entry = await ctx.deps.models.OperatorAction.findOne({
      action: 'tape.upload',
      target: `${uploadId}/quant.parquet`,
    }).lean();
    assert.ok(entry, 'the upload is in operator_actions');
    assert.equal(entry.actor, 'api');
    assert.equal(entry.detail, `${readFileSync(sample.quant).length} bytes`);

    for (const id of ['-'.repeat(36), 'a'.repeat(36), `${uploadId.slice(0, 35)}g`]) {
      const odd = await api()
        .put(`/api/admin/tapes/uploads/${id}/quant.parquet`)
        .set(operator())
        .set('Content-Type', 'application/octet-stream')
        .send(Buffer.from('x'));
      assert.equal(odd.status, 404, `${id}: an id the import refuses is refused for files too`);
      assert.equal(existsSync(join(dirs.uploads, id)), false);
      const importOdd = await api()
        .post('/api/admin/tapes/import')
        .set(operator())
        .send({ upload_id: id, source: 'odd-ids' });
      assert.equal(importOdd.status, 422, id);
    }

    // An upload left a day ago (never imported) goes with the next upload.
    const stale = join(dirs.uploads, randomUUID());
    mkdirSync(stale, { recursive: true });
    writeFileSync(join(stale, 'markets.parquet'), 'x');
    const dayAgo = new Date(Date.now() - 25 * 3600_000);
    utimesSync(stale, dayAgo, dayAgo);
    const next = await api()
      .put(`/api/admin/tapes/uploads/${randomUUID()}/markets.parquet`)
      .set(operator())
      .set('Content-Type', 'application/octet-stream')
      .send(readFileSync(sample.markets));
    assert.equal(next.status, 201);
    assert.equal(existsSync(stale), false, 'the stale upload is removed');
    assert.equal(existsSync(join(dirs.uploads, uploadId)), true, 'a fresh one is kept');
  });

  it('refuses every venue of the process as a source name (the recorder writes under each)', async () => {
    const dirs = tapeDirs(testContext().env.DATA_DIR);
    const sample = await sampleTape();
    for (const venue of testContext()
      .deps.venues.all()
      .map((v) => v.id))
      await assert.rejects(importTape(dirs, venue, sample.markets, sample.quant), /recorder's own/, venue);
  });
});
