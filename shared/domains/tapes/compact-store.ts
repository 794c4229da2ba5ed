import { randomUUID } from 'node:crypto';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { sqlString, sqlStringList, withDuckDb } from '../../infra/duckdb.js';
import { dayOf } from './tape-window.js';
import { batchName, listStoreFiles, removeSuperseded, supersede, type TapeDirs } from './tape-store.js';

/** Superseded files stay this long: a slice planned on their names may still be reading them. */
const SUPERSEDED_KEPT_MS = 3600_000;
/** A source's market files are merged once there are more than this many. */
const MARKET_FILES_BEFORE_MERGE = 24;

export interface Compaction {
  /** Source days whose print files were merged into one. */
  days: number;
  /** Sources whose market files were merged into one. */
  marketSources: number;
}

/**
 * Keeps the store few files: each run of the recorder adds small files, so a finished day's print
 * files of a source become one file (each print once), and a source's many market files one (each
 * market's latest row). The merged file is renamed in, then the old names are listed as superseded
 * (listings skip them at once) and the files stay an hour, so a slice planned on the old names still
 * reads them; a later run removes them. A slice planned after reads the new names: a new revision.
 */
export async function compactStore(dirs: TapeDirs, now: Date): Promise<Compaction> {
  removeSuperseded(dirs, SUPERSEDED_KEPT_MS, now);
  const files = listStoreFiles(dirs);
  const today = dayOf(Math.floor(now.getTime() / 1000));
  const groups = new Map<string, string[]>();
  for (const p of files.prints) {
    if (p.day >= today) continue;
    const key = join(p.source, p.day);
    groups.set(key, [...(groups.get(key) ?? []), p.file]);
  }
  const done: Compaction = { days: 0, marketSources: 0 };
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    await merge(
      dirs,
      group,
      (list, out) =>
        `COPY (SELECT * FROM read_parquet(${list}, union_by_name = true)
             QUALIFY row_number() OVER (PARTITION BY print_id ORDER BY timestamp) = 1
             ORDER BY timestamp, print_id)
       TO ${out} (FORMAT parquet)`,
    );
    done.days += 1;
  }
  const marketsBySource = new Map<string, string[]>();
  for (const f of files.markets) {
    const source = basename(dirname(dirname(f)));
    marketsBySource.set(source, [...(marketsBySource.get(source) ?? []), f]);
  }
  for (const group of marketsBySource.values()) {
    if (group.length <= MARKET_FILES_BEFORE_MERGE) continue;
    await merge(
      dirs,
      group,
      (list, out) =>
        `COPY (SELECT * FROM read_parquet(${list}, union_by_name = true)
             QUALIFY row_number() OVER (PARTITION BY id ORDER BY updated_at DESC NULLS LAST) = 1
             ORDER BY id)
       TO ${out} (FORMAT parquet)`,
    );
    done.marketSources += 1;
  }
  return done;
}

/** Writes `sql(files, out)` to a staged file, renames it beside the files, then supersedes them. */
async function merge(dirs: TapeDirs, group: string[], sql: (list: string, out: string) => string) {
  const stage = join(dirs.staging, randomUUID());
  mkdirSync(stage, { recursive: true });
  try {
    const out = join(stage, 'merged.parquet');
    await withDuckDb((db) => db.run(sql(sqlStringList(group), sqlString(out))));
    const dir = dirname(group[0]!);
    renameSync(out, join(dir, batchName()));
    supersede(
      dir,
      group.map((f) => basename(f)),
    );
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
