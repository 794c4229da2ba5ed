import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { VenueRegistry } from '../venues/venue-registry.js';
import { AppError } from '../../infra/errors.js';
import { VenueHttpError } from '../../infra/http/venue-http-error.js';
import { venueUnavailable } from '../venues/venue-unavailable.js';
import type { MarketRecord } from '../markets/market.model.js';
import {
  type ImportTargets,
  isNotFound,
  type VenueImporting,
  type VenueMarket,
} from '../venues/venue-adapter.js';
import type { ExternalVenueId } from '../venues/venue-id.js';
import { venueIdField, type VenueIdField } from '../venues/venue-ref-fields.js';
import {
  addMissingImportedTags,
  importedMarketId,
  insertImportedMarket,
  notImportableReason,
} from './imported-market.js';
import { ImportRefused, refuseImport as refuse } from './import-refusal.js';
import { refundImport } from './import-quota.js';
import type { MarketImportRecord } from './market-import.model.js';
import { adapterImporting } from '../venues/adapter-importing.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type RunImportDeps = Pick<InfraDeps, 'env' | 'redis' | 'clock'> & {
  models: Models;
  venues: VenueRegistry;
};

/** Outcomes imported from a multi-outcome event when the agent names none (spec §8). */
export const MAX_OUTCOMES_PER_IMPORT = 10;

export type ImportedRow<V extends ExternalVenueId = ExternalVenueId> = {
  market_id: string;
  question: string;
  outcome_name: string | null;
  current_probability: number;
  status: 'imported' | 'already_exists' | 'resolved';
} & VenueIdField<V>;

export type SkippedRow = { question: string; reason: string } & VenueIdField;

export type ImportResult<V extends ExternalVenueId = ExternalVenueId> = {
  success: true;
  status: 'imported' | 'already_exists' | 'resolved';
  market_id: string;
  question: string;
  current_probability: number;
  external_price_yes: number | null;
  resolves_at: string | null;
  import_source: V;
  event_id: string | null;
  event_name: string | null;
  markets: ImportedRow<V>[];
  markets_imported: number;
  markets_skipped: number;
  skipped: SkippedRow[];
  warning?: string;
} & VenueIdField<V>;

/** How the request's venue imports: its own way, or through its market data alone (adapterImporting). */
export function importingOf(deps: RunImportDeps, venue: ExternalVenueId): VenueImporting {
  const adapter = deps.venues.get(venue);
  return adapter.importing ?? adapterImporting(adapter);
}

/** The markets the request names on its venue, or a 404 `market_not_found` answer. */
async function findTargets(importing: VenueImporting, req: MarketImportRecord): Promise<ImportTargets> {
  const found = await importing.targets(req);
  if (isNotFound(found)) throw refuse(404, 'market_not_found', found.notFound, found.fix);
  return found;
}

interface Skip {
  externalId: string;
  question: string;
  reason: string;
}

/** The markets to import from the targets, and the ones left out with why. */
function choose(importing: VenueImporting, req: MarketImportRecord, targets: ImportTargets) {
  const { label } = importing;
  const skipped: Skip[] = [];
  const warnings: string[] = [];
  let chosen = targets.markets;
  if (req.marketIds.length) {
    const wanted = new Set(req.marketIds.map((id) => id.toLowerCase()));
    chosen = chosen.filter((m) => wanted.has(m.externalId.toLowerCase()));
    const missing = [...wanted].filter((id) => !chosen.some((m) => m.externalId.toLowerCase() === id));
    if (missing.length) warnings.push(`market_ids not in this event, ignored: ${missing.join(', ')}.`);
  }
  const importable: VenueMarket[] = [];
  for (const m of chosen) {
    const reason =
      notImportableReason(m, label) ?? (targets.wholeEvent ? (importing.skipOpenOutcome?.(m) ?? null) : null);
    if (reason) skipped.push({ externalId: m.externalId, question: m.question, reason });
    else importable.push(m);
  }
  if (!req.marketIds.length && importable.length > MAX_OUTCOMES_PER_IMPORT) {
    for (const m of importable.slice(MAX_OUTCOMES_PER_IMPORT))
      skipped.push({ externalId: m.externalId, question: m.question, reason: 'over the 10-outcome default' });
    warnings.push(
      `This event has ${importable.length} open outcomes; the first ${MAX_OUTCOMES_PER_IMPORT} were imported. ${importing.moreOutcomes}`,
    );
    importable.length = MAX_OUTCOMES_PER_IMPORT;
  }
  return { importable, skipped, warnings };
}

async function importMarkets(deps: RunImportDeps, req: MarketImportRecord): Promise<ImportResult> {
  const importing = importingOf(deps, req.venue);
  const targets = await findTargets(importing, req);
  const { event, markets } = targets;
  const { importable, skipped, warnings } = choose(importing, req, targets);
  // Resolved markets already here are answered as they are; resolved ones not here cannot be traded.
  const existing = await deps.models.Market.find(
    { _id: { $in: markets.map((m) => importedMarketId(req.venue, m.externalId)) } },
    STORED_MARKET_FIELDS,
  ).lean();
  const byId = new Map(existing.map((m) => [m._id, m]));
  const now = deps.clock();
  const rows: ImportedRow[] = [];
  // "Created by this request" is read off the market (importedBy), so a retried job after a crash
  // counts the same markets as the run that inserted them.
  let created = 0;
  for (const m of importable) {
    const id = importedMarketId(req.venue, m.externalId);
    // A re-import also brings an earlier import's tags up to what the venue tags it now.
    if (byId.has(id)) await addMissingImportedTags(deps.models, req.venue, m);
    else await insertImportedMarket(deps.models, req.venue, m, now, req._id);
    const stored = byId.get(id) ?? (await deps.models.Market.findById(id, STORED_MARKET_FIELDS).lean());
    if (!stored) continue;
    byId.set(id, stored);
    const mine = stored.importedBy === req._id;
    if (mine) created++;
    rows.push({ ...existingRow(req.venue, stored), ...(mine ? { status: 'imported' as const } : {}) });
  }
  // Asked-for markets that are closed but already here answer with their record (e.g. resolved).
  for (const s of skipped) {
    const here = byId.get(importedMarketId(req.venue, s.externalId));
    if (here && !rows.some((r) => r.market_id === here._id)) rows.push(existingRow(req.venue, here));
  }
  if (!rows.length) {
    const why = skipped[0]?.reason ?? 'no market matched';
    throw refuse(
      422,
      'market_not_importable',
      `Nothing to import: ${why}`,
      `Only open ${importing.label} markets can be imported. Find open ones with GET /api/sdk/markets/importable?venue=${req.venue}.`,
    );
  }
  return importAnswer(req.venue, rows, byId, {
    created,
    skipped: skipped.map((x) => ({
      ...venueIdField(req.venue, x.externalId),
      question: x.question,
      reason: x.reason,
    })),
    warnings,
    eventId: event?.id ?? null,
    eventName: event?.title ?? null,
  });
}

type StoredMarket = Pick<
  MarketRecord,
  | '_id'
  | 'question'
  | 'outcomeName'
  | 'currentPrice'
  | 'status'
  | 'externalPriceYes'
  | 'resolvesAt'
  | 'eventId'
  | 'eventName'
  | 'importSource'
  | 'venueRef'
  | 'eventRef'
>;
export const STORED_MARKET_FIELDS = {
  question: 1,
  outcomeName: 1,
  currentPrice: 1,
  status: 1,
  venueRef: 1,
  importSource: 1,
  externalPriceYes: 1,
  resolvesAt: 1,
  eventId: 1,
  eventName: 1,
  eventRef: 1,
  importedBy: 1,
} as const;

/** The import answer (client-contract §5.6): the first market's keys at the top, every market in `markets`. */
export function importAnswer<V extends ExternalVenueId>(
  venue: V,
  rows: ImportedRow[],
  byId: Map<string, StoredMarket>,
  o: {
    created: number;
    skipped: ImportResult['skipped'];
    warnings: string[];
    eventId: string | null;
    eventName: string | null;
  },
): ImportResult<V> {
  const first = byId.get(rows[0]!.market_id)!;
  return {
    success: true,
    status:
      o.created > 0 ? 'imported' : rows.every((r) => r.status === 'resolved') ? 'resolved' : 'already_exists',
    market_id: rows[0]!.market_id,
    question: first.question,
    current_probability: first.currentPrice,
    external_price_yes: first.externalPriceYes ?? null,
    resolves_at: first.resolvesAt ? new Date(first.resolvesAt).toISOString() : null,
    ...venueIdField(venue, externalIdOf(first)),
    import_source: venue,
    event_id: o.eventId ?? first.eventId ?? null,
    event_name: o.eventName ?? first.eventName ?? null,
    markets: rows,
    markets_imported: o.created,
    markets_skipped: o.skipped.length,
    skipped: o.skipped,
    ...(o.warnings.length ? { warning: o.warnings.join(' ') } : {}),
    // Every id key above comes from venueIdField of this venue, which TypeScript cannot follow.
  } as unknown as ImportResult<V>;
}

/** The venue id of a stored imported market (its condition id or ticker). */
const externalIdOf = (m: StoredMarket) => m.venueRef?.externalId ?? '';

/** A row of the answer for a market of `venue` already here. */
export const existingRow = (venue: ExternalVenueId, m: StoredMarket): ImportedRow => ({
  market_id: m._id,
  question: m.question,
  outcome_name: m.outcomeName,
  current_probability: m.currentPrice,
  ...venueIdField(venue, externalIdOf(m)),
  status: m.status === 'resolved' ? 'resolved' : 'already_exists',
});

/**
 * The `import-markets` job: runs the persisted request once and records its answer on it. A retry
 * after a crash finds the answer, or re-runs an import that is idempotent by construction.
 */
export async function runImport(deps: RunImportDeps, importId: string): Promise<{ ok: boolean }> {
  const req = await deps.models.MarketImport.findById(importId).lean();
  if (!req) return { ok: false };
  // Answered already (a retry after a crash): only the quota may be left to settle.
  if (req.status !== 'pending') return settleQuota(deps, importId);
  let update: Partial<MarketImportRecord>;
  try {
    update = { status: 'done', result: (await importMarkets(deps, req)) as never };
  } catch (err) {
    if (err instanceof ImportRefused) update = { status: 'failed', error: err.failure };
    else if (err instanceof VenueHttpError) {
      const e = venueUnavailable(err);
      update = {
        status: 'failed',
        error: { status: e.status, code: e.code, message: e.message, fix: e.fix },
      };
    }
    // Deliberate refusals (e.g. no adapter for the venue) are answers too.
    else if (err instanceof AppError)
      update = {
        status: 'failed',
        error: { status: err.status, code: err.code, message: err.message, fix: err.fix },
      };
    else throw err;
  }
  await deps.models.MarketImport.updateOne(
    { _id: importId, status: 'pending' },
    { $set: { ...update, finishedAt: deps.clock() } },
  );
  return settleQuota(deps, importId);
}

/** Keeps the request's quota use only if it created markets; idempotent, so a retried job may run it again. */
async function settleQuota(deps: RunImportDeps, importId: string): Promise<{ ok: boolean }> {
  const req = await deps.models.MarketImport.findById(importId, { status: 1, result: 1 }).lean();
  const created = (req?.result as ImportResult | null)?.markets_imported ?? 0;
  if (req?.status === 'failed' || (req?.status === 'done' && created === 0))
    await refundImport(deps, importId);
  return { ok: req?.status === 'done' };
}
