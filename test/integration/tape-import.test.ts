import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
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
                    (${ts})::UBIGINT AS timestamp, 1000 + j AS block_number, '0x' || sha256('tx' || i || '_' || j) AS transaction_hash,
                    j AS log_index, '${prefix}-' || i AS market_id, '0xcond${prefix}' || i AS condition_id, 'ev1' AS event_id,
                    0.3 + j / 100.0 AS price, 10.0 AS usd_amount, 10.0 / (0.3 + j / 100.0) AS token_amount,
                    '0x' || left(sha256('maker'), 40) AS maker, '0x' || left(sha256('taker'), 40) AS taker
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

/** An uncompressed copy of a parquet file: its values lie in it as plain bytes, to flip one of. */
async function plainCopy(file: string): Promise<string> {
  const plain = join(mkdtempSync(join(tmpdir(), 'plain-')), 'quant.parquet');
  await withDuckDb((db) =>
    db.run(
      `COPY (SELECT * FROM read_parquet('${file}')) TO '${plain}' (FORMAT parquet, COMPRESSION uncompressed)`,
    ),
  );
  return plain;
}

/** A copy of `file` with one bit flipped (`bit` of the byte at `offset`): what a disk or a wire does. */
function bitFlipped(file: string, offset: number, bit: number): string {
  const byte = readFileSync(file)[offset]!;
  return damaged(file, offset, Buffer.of(byte ^ bit));
}

/** The first offset of `bytes` inside a column's chunk of `file` (its values, not another column's). */
async function offsetIn(file: string, column: string, bytes: Buffer): Promise<number> {
  const chunk = await columnChunk(file, column);
  const at = readFileSync(file)
    .subarray(chunk.start, chunk.start + chunk.size)
    .indexOf(bytes);
  assert.ok(at >= 0, `${column}: the value is in its chunk`);
  return chunk.start + at;
}

/** The first row (from 0) of `file` where `column` = `value`. */
async function firstRowWith(file: string, column: string, value: string | number): Promise<number> {
  const [row] = await withDuckDb(async (db) =>
    (
      await db.runAndReadAll(
        `SELECT min(file_row_number) FROM read_parquet('${file}', file_row_number = true) WHERE ${column} = ${typeof value === 'number' ? value : `'${value}'`}`,
      )
    ).getRows(),
  );
  return Number(row![0]);
}

/** A value of `column` at row `row` of `file`. */
async function valueAt(file: string, column: string, row: number): Promise<string> {
  const [found] = await withDuckDb(async (db) =>
    (
      await db.runAndReadAll(
        `SELECT CAST(${column} AS VARCHAR) FROM read_parquet('${file}', file_row_number = true) WHERE file_row_number = ${row}`,
      )
    ).getRows(),
  );
  return String(found![0]);
}

/**
 * A copy of `file` with one bit (`bit`) flipped in the text `value` of `column`, in its first
 * character from `from` on that the flip turns into another hex digit (`staysHex`) or into no hex
 * digit at all.
 */
async function hexFlipped(
  file: string,
  column: string,
  value: string,
  flip: { from: number; bit: number; staysHex: boolean },
): Promise<string> {
  for (let i = flip.from; i < value.length; i++) {
    const flippedChar = String.fromCharCode(value.charCodeAt(i) ^ flip.bit);
    if (/[0-9a-f]/.test(flippedChar) === flip.staysHex)
      return bitFlipped(file, (await offsetIn(file, column, Buffer.from(value))) + i, flip.bit);
  }
  throw new Error(`no character of ${value} flips as asked`);
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
    // A print whose two amounts are negative (usd_amount still tokens × price): no venue trades so.
    const fine = await makeDataset(startSec, 'neg');
    const negative = join(mkdtempSync(join(tmpdir(), 'negative-')), 'quant.parquet');
    await withDuckDb((db) =>
      db.run(
        `COPY (SELECT * REPLACE (CASE WHEN transaction_hash = '0x' || sha256('tx2_7') THEN -usd_amount ELSE usd_amount END AS usd_amount,
                                 CASE WHEN transaction_hash = '0x' || sha256('tx2_7') THEN -token_amount ELSE token_amount END AS token_amount)
               FROM read_parquet('${fine.quant}')) TO '${negative}' (FORMAT parquet)`,
      ),
    );
    const row = await firstRowWith(
      negative,
      'transaction_hash',
      `0x${createHash('sha256').update('tx2_7').digest('hex')}`,
    );
    await assert.rejects(
      importTape(dirs, 'bad-negative', fine.markets, negative),
      new RegExp(
        `quant\\.parquet, column usd_amount, row ${row} \\(counted from 0; the only such row\\): usd_amount -10\\.0, but amounts are never negative`,
      ),
    );
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
    const plain = await plainCopy(sample.quant);
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
    // A bit flipped in the footer, in a column's name: condition_id becomes conditi<DEL>n_id (the
    // column of the tape schema then absent, its values kept under a name nobody reads).
    const bytes = readFileSync(sample.quant);
    const footerStart = bytes.length - 8 - bytes.readUInt32LE(bytes.length - 8);
    const renamed = bitFlipped(
      sample.quant,
      bytes.indexOf(Buffer.from('condition_id'), footerStart) + 'conditi'.length,
      0x10,
    );
    // A file cut short: no footer at all.
    const cutShort = join(mkdtempSync(join(tmpdir(), 'short-')), 'quant.parquet');
    writeFileSync(cutShort, readFileSync(sample.quant).subarray(0, 5000));

    for (const [quant, reason] of [
      // First the three the import took whole before (into the store), then the two it answered 500 or 422.
      [
        outOfRange,
        /column token_amount holds values from .* to 1000000000000\.0 where the file's footer says/,
      ],
      [renamed, /a column's name holds a control character \("conditi\\u007fn_id"\)/],
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

  it('refuses prints a flipped bit changed within the footer’s ranges when they break what every tape holds, naming the file, the column and the first row, and nothing reaches the store', async () => {
    const dirs = tapeDirs(testContext().env.DATA_DIR);
    const sample = await sampleTape();
    const plain = await plainCopy(sample.quant);
    const cases: { what: string; quant: string; column: string; row: number; says: RegExp }[] = [];

    // A hex digit of one print's transaction hash turned into another character.
    const hash = await valueAt(plain, 'transaction_hash', 100);
    cases.push({
      what: 'a transaction hash',
      quant: await hexFlipped(plain, 'transaction_hash', hash, { from: 20, bit: 0x08, staysHex: false }),
      column: 'transaction_hash',
      row: 100,
      says: /a transaction_hash beginning with 0x is an EVM transaction hash: 0x and 64 hex digits/,
    });
    // A party's address in the dictionary: every print of that taker changes.
    const taker = await valueAt(plain, 'taker', 200);
    cases.push({
      what: 'a taker',
      quant: await hexFlipped(plain, 'taker', taker, { from: 10, bit: 0x08, staysHex: false }),
      column: 'taker',
      row: await firstRowWith(plain, 'taker', taker),
      says: /a taker beginning with 0x is an EVM address/,
    });
    // A market's condition id turned into another hex string (neither the file's first nor last, so
    // inside the footer's range): only markets.parquet tells.
    const [market, condition] = (
      await withDuckDb(async (db) =>
        (
          await db.runAndReadAll(
            `SELECT DISTINCT market_id, condition_id FROM read_parquet('${plain}') ORDER BY condition_id LIMIT 1 OFFSET 2`,
          )
        ).getRows(),
      )
    )[0]!.map(String) as [string, string];
    cases.push({
      what: 'a condition id',
      quant: await hexFlipped(plain, 'condition_id', condition, { from: 10, bit: 0x01, staysHex: true }),
      column: 'condition_id',
      row: await firstRowWith(plain, 'market_id', market),
      says: new RegExp(`where markets\\.parquet says ${condition} for market ${market}`),
    });
    // Market 910002's event id 912 turned into 913 (another market's).
    cases.push({
      what: 'an event id',
      quant: bitFlipped(plain, (await offsetIn(plain, 'event_id', Buffer.from('912'))) + 2, 0x01),
      column: 'event_id',
      row: await firstRowWith(plain, 'event_id', '912'),
      says: /event_id 913 where markets\.parquet says 912 for market 910002/,
    });
    // The top bit of a token amount's mantissa: a quarter to a half more or less, still inside the
    // footer's range, and no longer usd_amount / price.
    const [[tokenRow, tokens]] = (await withDuckDb(async (db) =>
      (
        await db.runAndReadAll(
          `SELECT file_row_number, token_amount FROM read_parquet('${plain}', file_row_number = true)
           WHERE token_amount BETWEEN 20 AND 200 ORDER BY file_row_number LIMIT 1 OFFSET 50`,
        )
      ).getRows(),
    )) as [[bigint, number]];
    const tokenBytes = Buffer.alloc(8);
    tokenBytes.writeDoubleLE(tokens);
    const firstWithTokens = await firstRowWith(plain, 'token_amount', tokens);
    assert.ok(firstWithTokens <= Number(tokenRow));
    cases.push({
      what: 'a token amount',
      quant: bitFlipped(plain, (await offsetIn(plain, 'token_amount', tokenBytes)) + 6, 0x08),
      column: 'usd_amount',
      row: firstWithTokens,
      says: /but usd_amount is token_amount times the price of the outcome traded/,
    });

    for (const c of cases) {
      const source = `flipped-${randomUUID().slice(0, 8)}`;
      const uploadId = await upload({ markets: sample.markets, quant: c.quant });
      const res = await api()
        .post('/api/admin/tapes/import')
        .set(operator())
        .send({ upload_id: uploadId, source });
      assert.equal(res.status, 422, `${c.what}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error_code, 'invalid_tape');
      assert.match(
        res.body.detail,
        new RegExp(`^quant\\.parquet, column ${c.column}, row ${c.row} \\(counted from 0; `),
        c.what,
      );
      assert.match(res.body.detail, c.says, c.what);
      assert.ok(res.body.fix);
      assert.equal(existsSync(join(dirs.store, source)), false, `${c.what}: nothing in the store`);
      assert.equal(existsSync(join(dirs.uploads, uploadId)), false, 'the upload is removed');
    }
    // The same file unflipped, and its uncompressed copy, import (the rules hold for the sample).
    for (const quant of [sample.quant, plain]) {
      const ok = await api()
        .post('/api/admin/tapes/import')
        .set(operator())
        .send({
          upload_id: await upload({ markets: sample.markets, quant }),
          source: `whole-${randomUUID().slice(0, 8)}`,
        });
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
    }
  });

  it('refuses an upload whose bytes are not those of its Content-Digest or Repr-Digest (a bit flipped on its way) with a 400 naming the file, and writes nothing of it', async () => {
    const ctx = testContext();
    const dirs = tapeDirs(ctx.env.DATA_DIR);
    const sample = await sampleTape();
    const bytes = readFileSync(sample.quant);
    const sha = (algorithm: string, body: Buffer) => createHash(algorithm).update(body).digest('base64');
    const digest = `sha-256=:${sha('sha256', bytes)}:`;
    const inTransit = Buffer.from(bytes);
    inTransit[5000] = inTransit[5000]! ^ 0x04;
    const uploadId = randomUUID();
    const dir = join(dirs.uploads, uploadId);
    const put = (body: Buffer, field: Record<string, string>) =>
      api()
        .put(`/api/admin/tapes/uploads/${uploadId}/quant.parquet`)
        .set(operator())
        .set('Content-Type', 'application/octet-stream')
        .set(field)
        .send(body);

    for (const field of [
      { 'Content-Digest': digest } as Record<string, string>,
      { 'Repr-Digest': digest },
      { 'Content-Digest': `sha-512=:${sha('sha512', bytes)}:` },
      // Every digest named must hold: a right sha-512 does not excuse a wrong sha-256.
      { 'Content-Digest': `sha-512=:${sha('sha512', inTransit)}:, sha-256=:${sha('sha256', bytes)}:` },
    ]) {
      const refused = await put(inTransit, field);
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.error_code, 'content_digest_mismatch');
      assert.match(
        refused.body.detail,
        /^quant\.parquet: the \d+ bytes received have sha-(256|512)=:.*: where (Content|Repr)-Digest says /,
      );
      assert.ok(refused.body.fix);
      assert.equal(refused.headers['want-content-digest'], 'sha-256=10, sha-512=5');
      assert.equal(existsSync(dir), false, `${JSON.stringify(field)}: nothing of it in uploads/`);
    }
    const audit = await ctx.deps.models.OperatorAction.findOne({
      action: 'tape.upload',
      target: `${uploadId}/quant.parquet`,
    }).lean();
    assert.match(String(audit?.detail), /^refused: quant\.parquet: the \d+ bytes received/);

    for (const value of ['sha-256=abc', 'sha-256=:AAAA:', 'md5=:1B2M2Y8AsgTpgAmY7PhCfg==:']) {
      const invalid = await put(bytes, { 'Content-Digest': value });
      assert.equal(invalid.status, 400, value);
      assert.equal(invalid.body.error_code, 'content_digest_invalid', value);
      assert.match(invalid.body.detail, /^quant\.parquet: Content-Digest: /);
      assert.equal(existsSync(dir), false, `${value}: nothing written`);
    }

    const ok = await put(bytes, { 'Content-Digest': `${digest}, sha-512=:${sha('sha512', bytes)}:` });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.deepEqual(ok.body, { upload_id: uploadId, file: 'quant.parquet', bytes: bytes.length });
    assert.deepEqual(readdirSync(dir), ['quant.parquet'], 'the file under its name, nothing else');
    assert.ok(readFileSync(join(dir, 'quant.parquet')).equals(bytes));
    const again = await put(inTransit, { 'Repr-Digest': digest });
    assert.equal(again.status, 400);
    assert.ok(readFileSync(join(dir, 'quant.parquet')).equals(bytes), 'a refused body replaces nothing');
    const unchecked = await put(bytes, {});
    assert.equal(unchecked.status, 201, 'without a digest field the body is taken as before');
  });

  it('npm run tape:import -- --base-url sends each file’s Content-Digest: a bit flipped on its way is refused, the same files whole are imported', async () => {
    const ctx = testContext();
    const dirs = tapeDirs(ctx.env.DATA_DIR);
    const sample = await sampleTape();
    const service = ctx.app.listen(0, '127.0.0.1');
    await once(service, 'listening');
    let damage = true;
    // Between the script and the service: flips one bit of each quant.parquet body while `damage`.
    const wire = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        if (damage && req.method === 'PUT' && req.url?.endsWith('/quant.parquet'))
          body[body.length >> 1] = body[body.length >> 1]! ^ 0x10;
        const { 'transfer-encoding': _chunked, ...headers } = req.headers;
        const forward = httpRequest(
          {
            host: '127.0.0.1',
            port: (service.address() as AddressInfo).port,
            method: req.method,
            path: req.url,
            headers: { ...headers, 'content-length': String(body.length) },
          },
          (answer) => {
            res.writeHead(answer.statusCode!, answer.headers);
            answer.pipe(res);
          },
        );
        forward.end(body);
      });
    });
    wire.listen(0, '127.0.0.1');
    await once(wire, 'listening');
    const run = async (source: string) => {
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          'scripts/tape-import.ts',
          ...['--markets', sample.markets, '--quant', sample.quant, '--source', source],
          ...[
            '--base-url',
            `http://127.0.0.1:${(wire.address() as AddressInfo).port}`,
            '--token',
            ctx.operatorToken,
          ],
        ],
        {
          cwd: join(import.meta.dirname, '../..'),
          env: {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? '/tmp',
            NODE_ENV: 'test',
            DATA_DIR: ctx.env.DATA_DIR,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => (out += c));
      const [code] = (await once(child, 'exit')) as [number];
      return { code, out };
    };
    try {
      const before = new Set(readdirSync(dirs.uploads));
      const source = `wire-${randomUUID().slice(0, 8)}`;
      const damaged = await run(source);
      assert.equal(damaged.code, 1, damaged.out);
      assert.match(
        damaged.out,
        /tape:import: upload of quant\.parquet failed: 400 .*content_digest_mismatch/,
      );
      const left = readdirSync(dirs.uploads).filter((id) => !before.has(id));
      for (const id of left)
        assert.equal(
          existsSync(join(dirs.uploads, id, 'quant.parquet')),
          false,
          'nothing of the damaged file',
        );
      assert.equal(existsSync(join(dirs.store, source)), false);

      damage = false;
      const whole = await run(source);
      assert.equal(whole.code, 0, whole.out);
      assert.match(whole.out, /"prints": 1260/);
    } finally {
      wire.close();
      service.close();
    }
  });

  it('publishes the upload route in the OpenAPI document with its digest fields', async () => {
    const doc = (await api().get('/openapi.json')).body;
    const put = doc.paths['/api/admin/tapes/uploads/{upload_id}/{file}']?.put;
    assert.ok(put, 'the PUT is in the document');
    const headers = (put.parameters as { in: string; name: string }[])
      .filter((p) => p.in === 'header')
      .map((p) => p.name);
    assert.deepEqual(headers.sort(), ['Content-Digest', 'Repr-Digest']);
    assert.ok(put.requestBody.content['application/octet-stream']);
    assert.ok(put.responses['201'] && put.responses['400'] && put.responses['413']);
    assert.match(put.responses['400'].description, /content_digest_mismatch/);
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
