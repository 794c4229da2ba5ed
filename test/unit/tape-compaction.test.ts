import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withDuckDb, sqlStringList } from '../../shared/infra/duckdb.js';
import { compactStore } from '../../shared/domains/tapes/compact-store.js';
import type { TapeMarketRow, TapePrintRow } from '../../shared/domains/tapes/tape-columns.js';
import { tapeMarketRow, tapePrintRow } from '../support/tape-rows.js';
import {
  appendMarkets,
  appendPrints,
  listStoreFiles,
  tapeDirs,
} from '../../shared/domains/tapes/tape-store.js';

const DAY = 86_400;
// Yesterday (a finished day) and today, in real time: superseded files age by their real mtime.
const start = Math.floor(Date.now() / 1000 / DAY) * DAY - DAY;
const dayText = (sec: number) => new Date(sec * 1000).toISOString().slice(0, 10);

const print = (id: string, timestamp: number): TapePrintRow =>
  tapePrintRow({
    source: 'sim',
    print_id: id,
    timestamp,
    market_id: 'm1',
    condition_id: 'm1',
    usd_amount: 1,
    token_amount: 2,
    maker: 'sim-lmsr',
  });

const marketRow = (volume: number, updatedSec: number): TapeMarketRow =>
  tapeMarketRow({
    source: 'sim',
    id: 'm1',
    condition_id: 'm1',
    volume,
    created_at: new Date(start * 1000).toISOString(),
    updated_at: new Date(updatedSec * 1000).toISOString(),
  });

const count = (files: string[], sql = 'count(*)') =>
  withDuckDb(async (db) =>
    Number(
      (await db.runAndReadAll(`SELECT ${sql} FROM read_parquet(${sqlStringList(files)})`)).getRows()[0]![0],
    ),
  );

describe('tape store compaction #unit', () => {
  it('merges a finished day’s print files (each print once) and many market files (each market’s latest row), keeping the old files an hour', async () => {
    const dirs = tapeDirs(mkdtempSync(join(tmpdir(), 'tapes-')));
    // Three runs on a past day (one print recorded twice) and one on the current day.
    await appendPrints(dirs, 'sim', [print('a', start + 10), print('b', start + 20)]);
    await appendPrints(dirs, 'sim', [print('b', start + 20), print('c', start + 30)]);
    await appendPrints(dirs, 'sim', [print('d', start + 40)]);
    await appendPrints(dirs, 'sim', [print('e', start + DAY + 10)]);
    for (let i = 1; i <= 30; i++) await appendMarkets(dirs, 'sim', [marketRow(i * 100, start + i)]);
    const before = listStoreFiles(dirs);
    assert.equal(before.prints.length, 4);
    assert.equal(before.markets.length, 30);

    const now = new Date();
    assert.deepEqual(await compactStore(dirs, now), { days: 1, marketSources: 1 });
    const after = listStoreFiles(dirs);
    const pastDay = after.prints.filter((p) => p.day === dayText(start)).map((p) => p.file);
    assert.equal(pastDay.length, 1, 'one file for the finished day');
    assert.equal(await count(pastDay), 4, 'each print once');
    assert.equal(after.prints.filter((p) => p.day === dayText(start + DAY)).length, 1, 'today is left alone');
    assert.equal(after.markets.length, 1);
    assert.equal(await count(after.markets, 'max(volume)'), 3000, 'the latest row of the market');
    assert.equal(await count(after.markets), 1);
    for (const p of before.prints.filter((x) => x.day === dayText(start)))
      assert.ok(existsSync(p.file), 'superseded files stay for slices planned on them');

    assert.deepEqual(await compactStore(dirs, now), { days: 0, marketSources: 0 }, 'nothing left to merge');
    await compactStore(dirs, new Date(now.getTime() + 2 * 3600_000));
    for (const p of before.prints.filter((x) => x.day === dayText(start)))
      assert.ok(!existsSync(p.file), 'gone an hour later');
    assert.deepEqual(listStoreFiles(dirs).markets, after.markets);
  });
});
