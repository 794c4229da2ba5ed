import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { VenueRegistry } from '../venues/venue-registry.js';
import type { TierCache } from '../users/tier-cache.js';
import { randomUUID } from 'node:crypto';
import { publicBaseUrl } from '../../infra/config/env.js';
import { AppError, invalidField } from '../../infra/errors.js';
import type { AgentRecord } from '../agents/agent.model.js';
import { byExternalIds } from '../markets/venue-ref.js';
import { normalizeExternalId } from '../venues/venue-conventions.js';
import { secondsToUtcMidnight } from '../limits/daily-quota.js';
import { agentOwner } from '../users/settings-owner.js';
import type { ImportInputParse, ImportInputTarget } from '../venues/venue-adapter.js';
import { isExternalVenue, type ExternalVenueId } from '../venues/venue-id.js';
import type {
  ImportRequest,
  KalshiEventImportRequest,
  KalshiImportRequest,
  VenueImportRequest,
} from './import.schemas.js';
import { importQuota, refundImport } from './import-quota.js';
import type { MarketImportRecord } from './market-import.model.js';
import {
  existingRow,
  importAnswer,
  importingOf,
  STORED_MARKET_FIELDS,
  type ImportResult,
} from './run-import.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type SubmitImportDeps = Pick<InfraDeps, 'env' | 'redis' | 'queues' | 'clock'> & {
  models: Models;
  venues: VenueRegistry;
  caches: TierCache;
};

/** What the import endpoint sends back: the body and the quota headers (spec §4.2). */
export interface ImportAnswer<V extends ExternalVenueId = ExternalVenueId> {
  body: ImportResult<V> & { warning?: string };
  headers: Record<string, string>;
}

const quotaHeaders = (limit: number, remaining: number) => ({
  'X-Imports-Limit': String(limit),
  'X-Imports-Remaining': String(Math.max(0, remaining)),
});

type PageTarget = Extract<ImportInputTarget, { kind: 'event' | 'market' }>;
type TickerTarget = Extract<ImportInputTarget, { kind: 'ticker' | 'series' }>;

/** The venue's own reading of a pasted URL or ticker: each venue knows its page forms. */
function importInput(deps: SubmitImportDeps, venue: ExternalVenueId, raw: string): ImportInputParse {
  return (
    deps.venues.get(venue).parseImportInput?.(raw) ?? {
      kind: 'error',
      reason: `Markets of ${venue} are not imported by URL on this service.`,
    }
  );
}

/** The 422 of an input the venue's parse did not take as the kind of page this endpoint imports. */
function invalidInput(
  deps: SubmitImportDeps,
  venue: ExternalVenueId,
  field: string,
  raw: string,
  parsed: ImportInputParse,
) {
  const { msg, fix } = importingOf(deps, venue).invalidInput;
  return invalidField(field, msg, raw, parsed.kind === 'error' ? parsed.reason : fix);
}

/**
 * Markets of the page that are here already, when they cover what was asked: re-imports are
 * answered from the database, free, without a job or a venue call.
 */
async function alreadyImportedPage(
  deps: SubmitImportDeps,
  venue: ExternalVenueId,
  target: PageTarget,
  marketIds: string[] | undefined,
) {
  const filter =
    target.kind === 'event'
      ? { importSource: venue, eventRef: target.eventSlug }
      : { importSource: venue, venueSlug: target.marketSlug };
  const found = await deps.models.Market.find(filter, STORED_MARKET_FIELDS)
    .sort({ createdAt: 1, _id: 1 })
    .lean();
  if (!found.length) return null;
  if (marketIds?.length) {
    const ids = new Set(found.map((m) => m.venueRef?.externalId));
    const asked = marketIds.map((id) => normalizeExternalId(venue, id));
    if (!asked.every((id) => ids.has(id))) return null;
    return found.filter((m) => asked.includes(m.venueRef?.externalId ?? ''));
  }
  return found;
}

function x402Refusal(deps: SubmitImportDeps, limit: number, tier: string): AppError {
  const retryAfter = secondsToUtcMidnight(deps.clock());
  return new AppError(
    429,
    'import_limit_reached',
    `Daily import limit reached: ${limit} imports per day on the ${tier} tier`,
    `Re-importing markets already here stays free. New imports resume at midnight UTC (in ${retryAfter} s); a higher tier raises the limit.`,
    {
      retryable: true,
      headers: { 'Retry-After': String(retryAfter), ...quotaHeaders(limit, 0) },
      body: {
        limit,
        x402_url: `${publicBaseUrl(deps.env)}/x402/api/sdk/markets/import`,
        x402_price: '$0.005',
      },
    },
  );
}

/** What a venue's import endpoint hands the shared flow once its input is parsed. */
interface ImportSpec<V extends ExternalVenueId> {
  venue: V;
  /** The request as persisted for the worker (kind and the venue's ids). */
  record: Pick<MarketImportRecord, 'url' | 'kind'> &
    Partial<Pick<MarketImportRecord, 'eventSlug' | 'marketSlug' | 'marketIds' | 'ticker' | 'series'>>;
  /** Markets of the target already here, when any. */
  existing: StoredRow[] | null;
  /** They cover what was asked: answered from the database, free, with no job or venue call. */
  covered: boolean;
  warnings: string[];
}
type StoredRow = Parameters<typeof existingRow>[1];

/**
 * `POST /api/sdk/markets/import` (Polymarket): imports from a venue whose pages are addressed by
 * slug. Parse the URL (never fetched), answer re-imports from the database, charge one import of
 * the daily quota, then persist the request and wait for the `market-imports` worker. An import
 * that created nothing gives its quota back.
 */
export async function submitPageImport<V extends ExternalVenueId>(
  deps: SubmitImportDeps,
  agent: AgentRecord,
  venue: V,
  body: ImportRequest,
): Promise<ImportAnswer<V>> {
  const parsed = importInput(deps, venue, body.polymarket_url);
  const target = parsed.kind === 'event' || parsed.kind === 'market' ? parsed : null;
  if (!target) throw invalidInput(deps, venue, 'polymarket_url', body.polymarket_url, parsed);
  const existing = await alreadyImportedPage(deps, venue, target, body.market_ids);
  return submitVenueImport(deps, agent, {
    venue,
    record: {
      url: body.polymarket_url,
      kind: target.kind,
      eventSlug: target.eventSlug,
      marketSlug: target.kind === 'market' ? target.marketSlug : null,
      marketIds: (body.market_ids ?? []).map((id) => id.toLowerCase()),
    },
    existing,
    // A market, or the named outcomes of an event, already here: nothing to fetch. A whole event is
    // asked of the venue again (it may have more outcomes than were imported), which is still free
    // when it creates nothing.
    covered: Boolean(existing && (target.kind === 'market' || body.market_ids?.length)),
    warnings: body.shared
      ? []
      : [
          'shared=false is deprecated and ignored: imported markets are public tracking markets, tradeable by every agent on sim.',
        ],
  });
}

/**
 * Markets of the ticker already here: the market of a ticker, or every market of an event (by its
 * ticker, or by the event of a market ticker when the whole event was asked for).
 */
async function alreadyImportedTicker(
  deps: SubmitImportDeps,
  venue: ExternalVenueId,
  target: TickerTarget,
  wholeEvent: boolean,
) {
  if (target.kind !== 'ticker') return null;
  const find = (filter: Record<string, unknown>) =>
    deps.models.Market.find(filter, STORED_MARKET_FIELDS).sort({ createdAt: 1, _id: 1 }).lean();
  const market = await find(byExternalIds(venue, [target.ticker]));
  if (market.length && !wholeEvent) return { rows: market, covered: true };
  const eventRef = market[0]?.eventRef ?? target.ticker;
  const event = await find({ importSource: venue, eventRef });
  return event.length ? { rows: event, covered: false } : null;
}

/**
 * `POST /api/sdk/markets/import/kalshi` (`kalshi_url`: a URL or a ticker, any case) and
 * `POST /api/sdk/markets/import/kalshi/event` (`event_ticker`: every outcome of the event, one
 * import): imports from a venue whose markets are addressed by ticker, with the same flow, quota
 * and answers as page imports (kalshi.md §2.11).
 */
export async function submitTickerImport<V extends ExternalVenueId>(
  deps: SubmitImportDeps,
  agent: AgentRecord,
  venue: V,
  body: KalshiImportRequest | KalshiEventImportRequest,
): Promise<ImportAnswer<V>> {
  const wholeEvent = 'event_ticker' in body;
  const field = wholeEvent ? 'event_ticker' : 'kalshi_url';
  const raw = wholeEvent ? body.event_ticker : body.kalshi_url;
  const parsed = importInput(deps, venue, raw);
  const target = parsed.kind === 'ticker' || parsed.kind === 'series' ? parsed : null;
  if (!target) throw invalidInput(deps, venue, field, raw, parsed);
  const existing = await alreadyImportedTicker(deps, venue, target, wholeEvent);
  return submitVenueImport(deps, agent, {
    venue,
    record: {
      url: raw,
      kind: target.kind === 'series' ? 'series' : wholeEvent ? 'event' : 'ticker',
      ticker: target.kind === 'ticker' ? target.ticker : null,
      series: target.series,
    },
    existing: existing?.rows ?? null,
    covered: existing?.covered ?? false,
    warnings: [],
  });
}

/**
 * `POST /api/sdk/markets/import/venue` (`venue`, `url`): imports from any external venue whose
 * adapter reads import input (`parseImportInput`), through the adapter seam alone; the same flow,
 * quota and answers as the venues' own endpoints.
 */
export async function submitAdapterImport(
  deps: SubmitImportDeps,
  agent: AgentRecord,
  body: VenueImportRequest,
): Promise<ImportAnswer> {
  const venue = body.venue;
  if (!isExternalVenue(venue))
    throw invalidField(
      'venue',
      'sim markets are not imported',
      venue,
      'Name the external venue the URL is of.',
    );
  const target = importInput(deps, venue, body.url);
  if (target.kind === 'error')
    throw invalidField('url', `not a ${venue} market URL`, body.url, target.reason);
  const filter = alreadyImportedFilter(venue, target);
  const existing = filter
    ? await deps.models.Market.find(filter, STORED_MARKET_FIELDS).sort({ createdAt: 1, _id: 1 }).lean()
    : [];
  return submitVenueImport(deps, agent, {
    venue,
    record: {
      url: body.url,
      kind: target.kind,
      eventSlug: 'eventSlug' in target ? target.eventSlug : null,
      marketSlug: target.kind === 'market' ? target.marketSlug : null,
      ticker: target.kind === 'ticker' ? target.ticker : null,
      series: 'series' in target ? target.series : null,
    },
    existing: existing.length ? existing : null,
    // One market already here answers at once; an event or series is asked of the venue again.
    covered: existing.length > 0 && (target.kind === 'market' || target.kind === 'ticker'),
    warnings: [],
  });
}

/**
 * The markets of `venue` a parsed import input names, as stored by an earlier import; null for a
 * series, whose event is only known once the venue is asked.
 */
function alreadyImportedFilter(venue: ExternalVenueId, target: ImportInputTarget) {
  switch (target.kind) {
    case 'market':
      return { importSource: venue, venueSlug: target.marketSlug };
    case 'ticker':
      return byExternalIds(venue, [target.ticker]);
    case 'event':
      return { importSource: venue, eventRef: target.eventSlug };
    case 'series':
      return null;
  }
}

async function submitVenueImport<V extends ExternalVenueId>(
  deps: SubmitImportDeps,
  agent: AgentRecord,
  spec: ImportSpec<V>,
): Promise<ImportAnswer<V>> {
  const { existing, warnings } = spec;
  const owner = await agentOwner(deps, agent);
  const limit = deps.env.TIER_IMPORTS_PER_DAY[owner.tier];
  const quota = importQuota(deps);
  const now = deps.clock();

  const answerExisting = async (extra: string[] = []): Promise<ImportAnswer<V>> => {
    const used = await quota.used(agent._id, now);
    const answer = importAnswer<V>(
      spec.venue,
      existing!.map((m) => existingRow(spec.venue, m)),
      new Map(existing!.map((m) => [m._id, m])),
      { created: 0, skipped: [], warnings: [...warnings, ...extra], eventId: null, eventName: null },
    );
    return { body: answer, headers: quotaHeaders(limit, limit - used) };
  };
  if (existing && spec.covered) return answerExisting();

  const taken = await quota.take(agent._id, limit, now);
  if (!taken.ok) {
    if (existing) return answerExisting();
    throw x402Refusal(deps, limit, owner.tier);
  }
  const importId = randomUUID();
  try {
    await deps.models.MarketImport.create({
      _id: importId,
      agentId: agent._id,
      venue: spec.venue,
      ...spec.record,
      status: 'pending',
      quota: 'charged',
      createdAt: now,
    });
  } catch (err) {
    await quota.giveBack(agent._id, now).catch(() => undefined);
    throw err;
  }
  let outcome;
  try {
    outcome = await deps.queues.enqueueAndWait('import-markets', { importId }, deps.env.IMPORT_WAIT_MS);
  } catch (err) {
    // Never queued: nothing will run, so nothing is charged.
    await refundImport(deps, importId).catch(() => undefined);
    throw err;
  }
  if (outcome.state === 'pending')
    // The worker carries on and settles the quota itself; a retry of the same call is free once the
    // markets exist.
    throw new AppError(
      503,
      'import_in_progress',
      'The import is still running',
      'Send the same request again in a few seconds: once the markets exist it is answered at once and costs no quota.',
      { retryable: true, headers: { 'Retry-After': '5' } },
    );
  const request = await deps.models.MarketImport.findById(importId).lean();
  if (request?.status === 'failed' && request.error) {
    const e = request.error;
    if (existing && e.code === 'venue_unavailable')
      return answerExisting([`${e.message}: these are the markets of this event already here.`]);
    throw new AppError(e.status, e.code, e.message, e.fix, { retryable: e.status >= 500 });
  }
  if (request?.status !== 'done' || !request.result)
    throw new Error(`import ${importId} ended without an answer`);
  const result = request.result as unknown as ImportResult<V>;
  const warning = [...warnings, result.warning].filter(Boolean).join(' ');
  const used = await quota.used(agent._id, now);
  return {
    body: { ...result, ...(warning ? { warning } : {}) },
    headers: quotaHeaders(limit, limit - used),
  };
}
