import type { Models } from '../models.js';
import type { VenueFill } from '../venues/venue-fill.js';
import type { ExternalVenueId } from '../venues/venue-id.js';
import { chunks } from '../../util/chunks.js';
import { duplicateIndexes } from '../refusal.js';

type FillStoreDeps = { models: Pick<Models, 'VenueFill'> };

/** Writes per database command: a busy block range is thousands of fills. */
const WRITES_PER_COMMAND = 1000;

/**
 * Stores the fills read from a range, idempotently by id: a fill seen again (a range read twice
 * after a restart, or a transaction a reorg mined again in another block) keeps its document and
 * only takes the block it is in now, and stands again if a reorg had withdrawn it. New fills go in
 * with one unordered insert and only those refused as already there are updated: an upsert per fill
 * cost the development database several times the insert (bench/reactor.bench.ts, a 2 s block of
 * ~260 legs, on the path of every signal).
 */
export async function storeFills(deps: FillStoreDeps, fills: readonly VenueFill[], now: Date): Promise<void> {
  for (const part of chunks(fills, WRITES_PER_COMMAND)) {
    const seen = await insertNew(deps, part, now);
    if (!seen.length) continue;
    await deps.models.VenueFill.bulkWrite(
      seen.map(({ _id, blockNumber, blockHash, at }) => ({
        updateOne: { filter: { _id }, update: { $set: { blockNumber, blockHash, at, withdrawnAt: null } } },
      })),
      { ordered: false },
    );
  }
}

/** Inserts `fills`; answers those already stored (refused as duplicates). */
async function insertNew(deps: FillStoreDeps, fills: VenueFill[], now: Date): Promise<VenueFill[]> {
  try {
    await deps.models.VenueFill.collection.insertMany(
      fills.map((f) => ({ ...f, withdrawnAt: null, recordedAt: now })) as never[],
      { ordered: false },
    );
    return [];
  } catch (err) {
    const duplicates = duplicateIndexes(err);
    if (!duplicates) throw err;
    return duplicates.map((i) => fills[i]!);
  }
}

/**
 * After a reorg, the fills stored for blocks `from`..`to` that the chain's blocks there no longer
 * hold: marked `withdrawnAt` (they never settled) and answered, for their `withdraw-fills` job.
 */
export async function withdrawMissing(
  deps: FillStoreDeps,
  venue: ExternalVenueId,
  range: { from: number; to: number },
  minedNow: readonly VenueFill[],
  now: Date,
): Promise<string[]> {
  const still = new Set(minedNow.map((f) => f._id));
  const stored = await deps.models.VenueFill.find(
    { venue, blockNumber: { $gte: range.from, $lte: range.to }, withdrawnAt: null },
    { _id: 1 },
  ).lean();
  const gone = stored.map((f) => f._id).filter((id) => !still.has(id));
  for (const ids of chunks(gone, WRITES_PER_COMMAND))
    await deps.models.VenueFill.updateMany(
      { _id: { $in: ids }, withdrawnAt: null },
      { $set: { withdrawnAt: now } },
    );
  return gone;
}
