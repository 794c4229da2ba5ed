import { randomUUID } from 'node:crypto';
import type { Deps } from '../../composition/deps.js';
import { publicBaseUrl } from '../../infra/config/env.js';
import { AppError, invalidField } from '../../infra/errors.js';
import type { AgentRecord } from '../agents/agent.model.js';
import { secondsToUtcMidnight } from '../limits/daily-quota.js';
import { agentOwner } from '../limits/settings-owner.js';
import { parsePolymarketUrl, type PolymarketUrlTarget } from '../venues/polymarket/polymarket-urls.js';
import type { ImportRequest } from './import.schemas.js';
import { importQuota, refundImport } from './import-quota.js';
import { existingRow, importAnswer, STORED_MARKET_FIELDS, type ImportResult } from './run-import.js';

/** What the import endpoint sends back: the body and the quota headers (spec §4.2). */
export interface ImportAnswer {
  body: ImportResult & { warning?: string };
  headers: Record<string, string>;
}

const quotaHeaders = (limit: number, remaining: number) => ({
  'X-Imports-Limit': String(limit),
  'X-Imports-Remaining': String(Math.max(0, remaining)),
});

/**
 * Markets of the target that are here already, when they cover what was asked: re-imports are
 * answered from the database, free, without a job or a venue call.
 */
async function alreadyImported(deps: Deps, target: PolymarketUrlTarget, marketIds: string[] | undefined) {
  const filter =
    target.kind === 'event'
      ? { importSource: 'polymarket' as const, eventRef: target.eventSlug }
      : { importSource: 'polymarket' as const, venueSlug: target.marketSlug };
  const found = await deps.models.Market.find(filter, STORED_MARKET_FIELDS)
    .sort({ createdAt: 1, _id: 1 })
    .lean();
  if (!found.length) return null;
  if (marketIds?.length) {
    const ids = new Set(found.map((m) => m.polymarketId));
    if (!marketIds.every((id) => ids.has(id.toLowerCase()))) return null;
    return found.filter((m) => marketIds.some((id) => id.toLowerCase() === m.polymarketId));
  }
  return found;
}

function x402Refusal(deps: Deps, limit: number, tier: string): AppError {
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

/**
 * `POST /api/sdk/markets/import`: parse the URL (never fetched), answer re-imports from the database,
 * charge one import of the daily quota, then persist the request and wait for the `market-imports`
 * worker. An import that created nothing gives its quota back.
 */
export async function submitImport(
  deps: Deps,
  agent: AgentRecord,
  body: ImportRequest,
): Promise<ImportAnswer> {
  const target = parsePolymarketUrl(body.polymarket_url);
  if (target.kind === 'error')
    throw invalidField(
      'polymarket_url',
      'not a Polymarket event or market URL',
      body.polymarket_url,
      target.reason,
    );
  const warnings = body.shared
    ? []
    : [
        'shared=false is deprecated and ignored: imported markets are public tracking markets, tradeable by every agent on sim.',
      ];
  const owner = await agentOwner(deps, agent);
  const limit = deps.env.TIER_IMPORTS_PER_DAY[owner.tier];
  const quota = importQuota(deps);
  const now = deps.clock();

  const existing = await alreadyImported(deps, target, body.market_ids);
  const answerExisting = async (extra: string[] = []): Promise<ImportAnswer> => {
    const used = await quota.used(agent._id, now);
    const answer = importAnswer(existing!.map(existingRow), new Map(existing!.map((m) => [m._id, m])), {
      created: 0,
      skipped: [],
      warnings: [...warnings, ...extra],
      eventId: null,
      eventName: null,
    });
    return { body: answer, headers: quotaHeaders(limit, limit - used) };
  };
  // A market, or the named outcomes of an event, already here: nothing to fetch. A whole event is
  // asked of the venue again (it may have more outcomes than were imported), which is still free
  // when it creates nothing.
  if (existing && (target.kind === 'market' || body.market_ids?.length)) return answerExisting();

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
      venue: 'polymarket',
      url: body.polymarket_url,
      kind: target.kind,
      eventSlug: target.eventSlug,
      marketSlug: target.kind === 'market' ? target.marketSlug : null,
      marketIds: (body.market_ids ?? []).map((id) => id.toLowerCase()),
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
  const result = request.result as unknown as ImportResult;
  const warning = [...warnings, result.warning].filter(Boolean).join(' ');
  const used = await quota.used(agent._id, now);
  return {
    body: { ...result, ...(warning ? { warning } : {}) },
    headers: quotaHeaders(limit, limit - used),
  };
}
