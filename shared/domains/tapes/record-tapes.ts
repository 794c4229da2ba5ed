import { randomUUID } from 'node:crypto';
import type { InfraDeps } from '../../infra/infra-deps.js';
import { chunks } from '../../util/chunks.js';
import type { Models } from '../models.js';
import type { VenueRegistry } from '../venues/venue-registry.js';
import { compactStore, type Compaction } from './compact-store.js';
import type { TapePrintRow } from './tape-columns.js';
import { partyPseudonym, tapeKey } from './tape-secret.js';
import {
  marketFingerprint,
  simFillPrint,
  TAPE_MARKET_FIELDS,
  tapeMarketRow,
  venuePrintRow,
  type TapeMarketSource,
} from './tape-rows.js';
import { appendMarkets, appendPrints, clearOlderThan, tapeDirs, type TapeDirs } from './tape-store.js';
import type { TapeCursorRecord } from './tape-cursor.model.js';
import { clearStaleUploads } from './tape-uploads.js';
import { POOL_VENUE } from '../venues/venue-id.js';

export type RecordTapesDeps = Pick<InfraDeps, 'env' | 'clock' | 'log'> & {
  models: Pick<Models, 'Market' | 'MarketEvent' | 'Trade' | 'TapeCursor' | 'TapeRecorder'>;
  venues: Pick<VenueRegistry, 'has' | 'get'>;
};

/** What one recorder run did, kept on the recorder's document for the console. */
export interface RecorderRun {
  startedAt: string;
  finishedAt: string;
  /** Another process holds the recorder's lease: this run did nothing. */
  skipped?: 'lease-held';
  markets: number;
  prints: Record<string, number>;
  venueMarkets: number;
  /** What the run merged (compact-store.ts). */
  compacted?: Compaction;
  errors: string[];
}

/** A run that dies keeps the lease this long at most; the next run after it takes over. */
const LEASE_MS = 5 * 60_000;
/** Built tapes are kept a day (tape URLs live an hour by default); the store itself is kept for good. */
const SLICE_RETENTION_MS = 24 * 3600_000;
/** Venue prints younger than this are left for the next run: a print of the same second may still come. */
const VENUE_LAG_SECONDS = 60;
/** The first run of a market reaches this far back on its venue. */
const VENUE_BACKFILL_SECONDS = 24 * 3600;
/** Prints asked of a venue per market per run, and markets asked per run (least recently first). */
const VENUE_PAGE = 1000;
const VENUE_MARKETS_PER_RUN = 200;
const VENUE_CONCURRENCY = 4;
/** Sim fill events read per market per run, and in all per run (recordSimFills). */
export interface SimFillLimits {
  perMarket: number;
  perRun: number;
}
const SIM_FILL_LIMITS: SimFillLimits = { perMarket: 5000, perRun: 50_000 };
/** Ids per read by `$in` (the takers' trades, the markets behind). */
const IDS_PER_READ = 1000;
/** Markets changed since the last run are looked at again from a little earlier (clock skew between processes). */
const RESCAN_MS = 5 * 60_000;

const cursorId = (source: string, marketId: string) => `${source}:${marketId}`;

/**
 * One recorder run (the `record-tapes` job): writes the market rows that changed, sim markets' new
 * fills and imported markets' new venue prints into the tape store, then moves the cursors. One
 * run at a time across processes (a lease); idempotent: the cursors move only past what is written.
 */
export async function recordTapes(
  deps: RecordTapesDeps,
  simLimits: SimFillLimits = SIM_FILL_LIMITS,
): Promise<RecorderRun> {
  const startedAt = deps.clock();
  const leaseId = randomUUID();
  const lease = await takeLease(deps, leaseId, startedAt);
  const run: RecorderRun = {
    startedAt: startedAt.toISOString(),
    finishedAt: startedAt.toISOString(),
    markets: 0,
    prints: {},
    venueMarkets: 0,
    errors: [],
  };
  if (!lease) return { ...run, skipped: 'lease-held' };
  const dirs = tapeDirs(deps.env.DATA_DIR);
  try {
    clearOlderThan(dirs.staging, LEASE_MS, startedAt);
    clearOlderThan(dirs.slices, SLICE_RETENTION_MS, startedAt);
    clearStaleUploads(dirs, startedAt);
    const since = lease.lastRunAt ? new Date(lease.lastRunAt.getTime() - RESCAN_MS) : null;
    run.markets = await recordMarketRows(deps, dirs, since, startedAt);
    run.prints.sim = await recordSimFills(deps, dirs, since, simLimits);
    await recordVenuePrints(deps, dirs, startedAt, run);
    run.compacted = await compactStore(dirs, startedAt);
  } finally {
    run.finishedAt = deps.clock().toISOString();
    await deps.models.TapeRecorder.updateOne(
      { _id: 'recorder', leaseId },
      { $set: { leaseUntil: null, lastRunAt: startedAt, lastRun: run } },
    );
  }
  return run;
}

async function takeLease(deps: RecordTapesDeps, leaseId: string, now: Date) {
  await deps.models.TapeRecorder.updateOne(
    { _id: 'recorder' },
    { $setOnInsert: { leaseUntil: null } },
    { upsert: true },
  );
  return deps.models.TapeRecorder.findOneAndUpdate(
    { _id: 'recorder', $or: [{ leaseUntil: null }, { leaseUntil: { $lt: now } }] },
    { $set: { leaseId, leaseUntil: new Date(now.getTime() + LEASE_MS) } },
    { returnDocument: 'before', projection: { lastRunAt: 1 } },
  ).lean();
}

/** The cursors of `ids` (cursor ids), by id, read IDS_PER_READ at a time (a first run names every market). */
async function cursorsOf(deps: RecordTapesDeps, ids: string[]) {
  const byId = new Map<string, TapeCursorRecord>();
  for (const slice of chunks(ids, IDS_PER_READ))
    for (const c of await deps.models.TapeCursor.find({ _id: { $in: slice } }).lean())
      byId.set(c._id, c as TapeCursorRecord);
  return byId;
}

/** Markets a run reads, fingerprints and writes at a time: bounds each command and each hold of the event loop. */
const MARKETS_PER_PAGE = 5000;

/** Writes the rows of markets whose tape-visible state changed since they were last written. */
async function recordMarketRows(
  deps: RecordTapesDeps,
  dirs: TapeDirs,
  since: Date | null,
  now: Date,
): Promise<number> {
  const found = deps.models.Market.find(since ? { updatedAt: { $gte: since } } : {}, TAPE_MARKET_FIELDS)
    .lean()
    .cursor({ batchSize: IDS_PER_READ });
  let written = 0;
  let page: TapeMarketSource[] = [];
  for await (const m of found) {
    page.push(m as TapeMarketSource);
    if (page.length === MARKETS_PER_PAGE) {
      written += await recordMarketPage(deps, dirs, page, now);
      page = [];
    }
  }
  if (page.length) written += await recordMarketPage(deps, dirs, page, now);
  return written;
}

/** One page of recordMarketRows: the markets whose fingerprint differs from their cursor's, written. */
async function recordMarketPage(
  deps: RecordTapesDeps,
  dirs: TapeDirs,
  markets: TapeMarketSource[],
  now: Date,
): Promise<number> {
  const cursors = await cursorsOf(
    deps,
    markets.map((m) => cursorId(m.importSource, m._id)),
  );
  const changed = markets
    .map((m) => ({ m, fingerprint: marketFingerprint(m) }))
    .filter(
      ({ m, fingerprint }) => cursors.get(cursorId(m.importSource, m._id))?.fingerprint !== fingerprint,
    );
  const bySource = new Map<string, typeof changed>();
  // Appended in place: copying the list per market was quadratic (a first run over 100,000 markets
  // held the event loop 45 s here).
  for (const c of changed) {
    const rows = bySource.get(c.m.importSource);
    if (rows) rows.push(c);
    else bySource.set(c.m.importSource, [c]);
  }
  for (const [source, rows] of bySource) {
    await appendMarkets(
      dirs,
      source,
      rows.map(({ m }) => tapeMarketRow(m, source, now)),
    );
    await deps.models.TapeCursor.bulkWrite(
      rows.map(({ m, fingerprint }) => ({
        updateOne: {
          filter: { _id: cursorId(source, m._id) },
          update: { $set: { fingerprint }, $setOnInsert: { source, marketId: m._id } },
          upsert: true,
        },
      })),
    );
  }
  return changed.length;
}

/**
 * Sim markets' fills since their cursor, read off each market's event log (gapless sequence
 * numbers: the log is the book's one writer, so nothing can land behind the cursor later).
 * Bounded: at most `limits.perMarket` events of a market and `limits.perRun` in all. A market left
 * with more to read is marked on its cursor (`backlog`) and read again by the next runs until it is
 * through, whether or not it trades again (a run looks only at markets traded since the last run).
 */
async function recordSimFills(
  deps: RecordTapesDeps,
  dirs: TapeDirs,
  since: Date | null,
  limits: SimFillLimits,
): Promise<number> {
  const traded = await deps.models.Market.find(
    { importSource: POOL_VENUE, lastTradeAt: since ? { $gte: since } : { $ne: null } },
    { eventId: 1 },
  ).lean();
  const seen = new Set(traded.map((m) => m._id));
  const behind = (await deps.models.TapeCursor.find({ backlog: POOL_VENUE }, { marketId: 1 }).lean())
    .map((c) => c.marketId)
    .filter((id) => !seen.has(id));
  const markets = [...traded];
  for (const ids of chunks(behind, IDS_PER_READ))
    markets.push(...(await deps.models.Market.find({ _id: { $in: ids } }, { eventId: 1 }).lean()));
  await forgetGoneBacklogs(deps, behind, new Set(markets.map((m) => m._id)));
  if (!markets.length) return 0;
  const cursors = await cursorsOf(
    deps,
    markets.map((m) => cursorId(POOL_VENUE, m._id)),
  );
  const prints: TapePrintRow[] = [];
  /** Per market read: the sequence number recorded through, and whether more may follow. */
  const read = new Map<string, { through: number | null; more: boolean }>();
  let budget = limits.perRun;
  for (const m of markets) {
    const cursor = cursors.get(cursorId(POOL_VENUE, m._id));
    const from = cursor?.seqThrough ?? 0;
    if (budget <= 0) {
      // Not read this run: marked, so that the next run reads it whether it trades again or not.
      if (!cursor?.backlog) read.set(m._id, { through: null, more: true });
      continue;
    }
    const limit = Math.min(limits.perMarket, budget);
    const events = await deps.models.MarketEvent.find({ marketId: m._id, seq: { $gt: from } })
      .sort({ seq: 1 })
      .limit(limit)
      .lean();
    budget -= events.length;
    let last = from;
    for (const e of events) {
      if (e.seq !== last + 1) break; // a gap: read again from here next run
      last = e.seq;
      if (e.kind !== 'fill') continue;
      const print = simFillPrint(e, m.eventId, null);
      if (print) prints.push(print);
    }
    const more = events.length === limit;
    if (last > from || more !== Boolean(cursor?.backlog))
      read.set(m._id, { through: last > from ? last : null, more });
  }
  await nameTakers(deps, prints);
  await appendPrints(dirs, POOL_VENUE, prints);
  if (read.size)
    await deps.models.TapeCursor.bulkWrite(
      [...read].map(([marketId, { through, more }]) => {
        const set = {
          ...(through !== null && { seqThrough: through, recordedAt: deps.clock() }),
          ...(more && { backlog: POOL_VENUE }),
        };
        return {
          updateOne: {
            filter: { _id: cursorId(POOL_VENUE, marketId) },
            update: {
              ...(Object.keys(set).length > 0 && { $set: set }),
              ...(!more && { $unset: { backlog: '' } }),
              $setOnInsert: { source: POOL_VENUE, marketId },
            },
            upsert: true,
          },
        };
      }),
    );
  return prints.length;
}

/**
 * A market deleted with fills still to read leaves its cursor marked: without the market there is
 * no event id to print them under, so the mark is dropped, not looked up again by every run.
 */
async function forgetGoneBacklogs(deps: RecordTapesDeps, behind: string[], found: Set<string>) {
  const gone = behind.filter((id) => !found.has(id)).map((id) => cursorId(POOL_VENUE, id));
  for (const ids of chunks(gone, IDS_PER_READ))
    await deps.models.TapeCursor.updateMany({ _id: { $in: ids } }, { $unset: { backlog: '' } });
}

/** Sets each sim print's taker to its agent's pseudonym (a fill event's id is its trade's). */
async function nameTakers(deps: RecordTapesDeps, prints: TapePrintRow[]) {
  if (!prints.length) return;
  const key = tapeKey(deps.env, 'tape-parties');
  // In bounded reads: a first run (or one after a pause) can find every fill ever made.
  const agentOf = new Map<string, string>();
  for (const ids of chunks(
    prints.map((p) => p.print_id),
    IDS_PER_READ,
  ))
    for (const t of await deps.models.Trade.find({ _id: { $in: ids } }, { agentId: 1 }).lean())
      agentOf.set(t._id, t.agentId);
  for (const p of prints) {
    const agentId = agentOf.get(p.print_id);
    p.taker = agentId ? partyPseudonym(key, agentId) : null;
  }
}

/** Imported markets' public prints on their venues, least recently recorded markets first. */
async function recordVenuePrints(deps: RecordTapesDeps, dirs: TapeDirs, now: Date, run: RecorderRun) {
  const markets = (await deps.models.Market.find(
    { importSource: { $ne: POOL_VENUE }, status: { $ne: 'resolved' }, venueRef: { $ne: null } },
    TAPE_MARKET_FIELDS,
  ).lean()) as TapeMarketSource[];
  const cursors = await cursorsOf(
    deps,
    markets.map((m) => cursorId(m.importSource, m._id)),
  );
  const recordedAt = (m: TapeMarketSource) =>
    cursors.get(cursorId(m.importSource, m._id))?.recordedAt?.getTime() ?? 0;
  const due = markets
    .filter((m) => deps.venues.has(m.importSource) && deps.venues.get(m.importSource).publicPrints)
    .sort((a, b) => recordedAt(a) - recordedAt(b))
    .slice(0, VENUE_MARKETS_PER_RUN);
  const nowSec = Math.floor(now.getTime() / 1000);
  const cutoff = nowSec - VENUE_LAG_SECONDS;
  const queue = [...due];
  const worker = async () => {
    for (let m = queue.shift(); m; m = queue.shift()) {
      const source = m.importSource;
      const cursor = cursors.get(cursorId(source, m._id));
      const afterSec = cursor?.printsThroughSec ?? nowSec - VENUE_BACKFILL_SECONDS;
      try {
        const prints = await deps.venues.get(source).publicPrints!(m.venueRef!, {
          afterSec,
          limit: VENUE_PAGE,
        });
        const { kept, throughSec } = settledPrints(prints, afterSec, cutoff, VENUE_PAGE);
        await appendPrints(
          dirs,
          source,
          kept.map((p) => venuePrintRow(p, source, m)),
        );
        await deps.models.TapeCursor.updateOne(
          { _id: cursorId(source, m._id) },
          {
            $set: { printsThroughSec: throughSec, recordedAt: deps.clock() },
            $setOnInsert: { source, marketId: m._id },
          },
          { upsert: true },
        );
        run.prints[source] = (run.prints[source] ?? 0) + kept.length;
        run.venueMarkets += 1;
      } catch (err) {
        deps.log.warn({ err, market: m._id, source }, 'tape recorder: venue prints not read');
        if (run.errors.length < 20) run.errors.push(`${source} ${m._id}: ${(err as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: VENUE_CONCURRENCY }, worker));
}

/**
 * The prints a run may record and how far its cursor may move: only prints older than the lag
 * (the venue may still publish more of a recent second); when the page was full, the last second
 * is left whole for the next run (more prints of it may be on the next page).
 */
export function settledPrints<P extends { timestamp: number }>(
  prints: P[],
  afterSec: number,
  cutoffSec: number,
  page: number,
): { kept: P[]; throughSec: number } {
  const settled = prints.filter((p) => p.timestamp > afterSec && p.timestamp <= cutoffSec);
  if (prints.length < page) return { kept: settled, throughSec: Math.max(afterSec, cutoffSec) };
  const lastSec = Math.max(afterSec, ...settled.map((p) => p.timestamp));
  const whole = settled.filter((p) => p.timestamp < lastSec);
  // A full page of one second: take it (nothing else would ever move the cursor).
  if (!whole.length) return { kept: settled, throughSec: lastSec };
  return { kept: whole, throughSec: lastSec - 1 };
}
