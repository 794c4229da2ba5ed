import { createHash } from 'node:crypto';
import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { VenueRegistry } from '../venues/venue-registry.js';
import type { VenueFill } from '../venues/venue-fill.js';
import { toMicro } from '../money.js';
import { duplicateIndexes } from '../refusal.js';
import { emitWebhookEvents } from '../webhooks/webhooks.js';
import { reserveDailyCap } from './daily-cap.js';
import { fillMarketKey, marketsOfFills, type ResolvedMarket } from './fill-markets.js';
import { meetsMinSize, mirrorAmountMicro } from './mirror-amount.js';
import { publishOnce } from './publish-signals.js';
import type { ReactorSignalRecord } from './reactor-signal.model.js';
import { pendingView } from './signal-view.js';
import { watcherIndex, type ReactorWatcherCache, type Watcher } from './watcher-index.js';
import { withdrawSignalsOfFills } from './withdraw-fills.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type ReactDeps = Pick<InfraDeps, 'env' | 'redis' | 'clock' | 'log' | 'queues'> & {
  models: Models;
  venues: VenueRegistry;
  caches: ReactorWatcherCache;
};

/**
 * A signal's id among the agent's (client-contract §12.1): the transaction hash for the taker leg
 * (one taker per settlement), the leg spelled out for a maker's (one transaction fills many makers).
 */
export const signalIdOf = (f: Pick<VenueFill, 'txHash' | 'leg' | 'logIndex' | 'wallet' | 'tokenId'>) =>
  f.leg === 'taker' ? f.txHash : `${f.txHash}:maker:${f.logIndex}:${f.wallet}:${f.tokenId}`;

const outcomeLabel = (f: VenueFill) => f.market?.outcomeLabel ?? (f.outcome === 'yes' ? 'Yes' : 'No');

/**
 * One watcher's signal of one fill, its daily cap reserved. A fill older than the signal lifetime
 * (read in a catch-up after an outage) is journaled but never pending: mirroring a trade that old
 * is not what the agent asked for. Only buys spend the daily cap (sells are exempt, as from every
 * daily cap of the service).
 */
async function signalOf(
  deps: Pick<ReactDeps, 'env' | 'redis'>,
  fill: VenueFill,
  w: Watcher,
  market: ResolvedMarket,
  now: Date,
): Promise<ReactorSignalRecord> {
  const ttlMs = deps.env.REACTOR_SIGNAL_TTL_SECONDS * 1000;
  const signalId = signalIdOf(fill);
  const sharesMicro = toMicro(fill.shares);
  const stale = fill.at.getTime() <= now.getTime() - ttlMs;
  let amountMicro = mirrorAmountMicro(sharesMicro, fill.price, w);
  if (fill.action === 'buy' && !stale && amountMicro > 0)
    amountMicro = await reserveDailyCap(
      deps.redis,
      deps.env.QUEUE_PREFIX,
      { agentId: w.agentId, signalId, at: now },
      amountMicro,
      w.dailyCapMicro,
    );
  return {
    _id: `${w.agentId}|${signalId}`,
    agentId: w.agentId,
    signalId,
    fillId: fill._id,
    leg: fill.leg,
    txHash: fill.txHash,
    venue: w.venue,
    marketId: market.id,
    side: fill.outcome,
    action: fill.action,
    amountMicro,
    whale: {
      wallet: fill.wallet,
      label: w.label,
      side: fill.action === 'buy' ? 'BUY' : 'SELL',
      tokenId: fill.tokenId,
      price: fill.price,
      sharesMicro,
      conditionId: fill.market!.externalId,
      marketTitle: fill.market!.title ?? market.question,
      marketSlug: fill.market!.slug ?? market.slug,
      outcome: outcomeLabel(fill),
    },
    live: !stale && amountMicro > 0,
    createdAt: now,
    expiresAt: new Date(now.getTime() + ttlMs),
    deletedAt: null,
    withdrawnAt: null,
    publishedAt: null,
    withdrawalPublishedAt: null,
  };
}

/**
 * Inserts the signals not there yet (by `_id`, whatever ran before); answers the ids this call
 * inserted. One unordered insert, where a signal already there (a retried job, a replayed block) is
 * refused as a duplicate and the others are written: an upsert per signal cost the development
 * database about three times as much (bench/reactor.bench.ts, ~1,300 signals a block).
 */
async function insertNew(models: Models, docs: ReactorSignalRecord[]): Promise<Set<string>> {
  const inserted = new Set(docs.map((d) => d._id));
  try {
    await models.ReactorSignal.collection.insertMany(docs as never[], { ordered: false });
  } catch (err) {
    const duplicates = duplicateIndexes(err);
    if (!duplicates) throw err;
    for (const i of duplicates) inserted.delete(docs[i]!._id);
  }
  return inserted;
}

/** `reactor.signal` to the webhooks of the agents whose signal is trade-ready; the event id makes a second emission a no-op. */
function announceSignals(deps: ReactDeps, signals: ReactorSignalRecord[]) {
  return emitWebhookEvents(
    deps,
    signals
      .filter((s) => s.live)
      .map((s) => ({
        agentIds: [s.agentId],
        event: {
          type: 'reactor.signal' as const,
          id: `reactor.signal.${createHash('sha256').update(s._id).digest('hex').slice(0, 40)}`,
          data: { agent_id: s.agentId, ...pendingView(s) },
        },
      })),
  );
}

/**
 * The `react-to-fills` job: each stored fill of a watched wallet, at or above the watcher's size
 * filters, becomes one signal per watching agent, its market resolved to ours (imported on the spot
 * when missing). Every step is idempotent, so a retried job, a replayed block or a second process
 * changes nothing already done: signals are keyed by agent and signal id, the cap is reserved once
 * per signal, each event is published once (publish-signals.ts), webhook deliveries are keyed by
 * event. A fill the feed withdrew meanwhile takes its signals back.
 */
export async function reactToFills(deps: ReactDeps, fillIds: string[]) {
  // By id alone (the development database serves only a filter of exactly an index's fields from
  // it); in the block's order, in which its fills spend an agent's daily cap.
  const fills = (
    (await deps.models.VenueFill.find({ _id: { $in: fillIds } })
      .sort({ blockNumber: 1, logIndex: 1 })
      .lean()) as VenueFill[]
  ).filter((f) => !f.withdrawnAt);
  const index = await watcherIndex(deps);
  const matches: { fill: VenueFill; watcher: Watcher }[] = [];
  for (const fill of fills) {
    if (!fill.market) continue;
    const sharesMicro = toMicro(fill.shares);
    for (const watcher of index.get(fill.wallet) ?? [])
      if (meetsMinSize(sharesMicro, watcher.minSharesMicro, watcher.entryMinSharesMicro))
        matches.push({ fill, watcher });
  }
  if (!matches.length) return { fills: fills.length, signals: 0, published: 0 };

  const markets = await marketsOfFills(deps, [...new Set(matches.map((m) => m.fill))]);
  const now = deps.clock();
  // Reservations go out together: one connection sends them in this order and Redis runs them so,
  // so the fills of a block spend an agent's cap in the block's order.
  const docs = await Promise.all(
    matches.flatMap(({ fill, watcher }) => {
      const market = markets.get(fillMarketKey(fill.venue, fill.market!.externalId));
      return market ? [signalOf(deps, fill, watcher, market, now)] : [];
    }),
  );
  if (!docs.length) return { fills: fills.length, signals: 0, published: 0 };

  const fresh = await insertNew(deps.models, docs);
  // Those written now are as built; only those an earlier run wrote are read back (their flags).
  const earlier = docs.filter((d) => !fresh.has(d._id)).map((d) => d._id);
  const stored = new Map(
    (earlier.length ? await deps.models.ReactorSignal.find({ _id: { $in: earlier } }).lean() : []).map(
      (s) => [s._id, s],
    ),
  );
  const signals = docs.flatMap((d) =>
    fresh.has(d._id) ? [d] : stored.has(d._id) ? [stored.get(d._id)!] : [],
  );
  const published = await publishOnce(deps, 'signal', signals as ReactorSignalRecord[], fresh);
  await announceSignals(deps, signals as ReactorSignalRecord[]);

  // The feed may have withdrawn a fill while this ran (a reorg): its withdraw job may have found no
  // signal yet, so they are taken back here.
  const reread = await deps.models.VenueFill.find(
    { _id: { $in: fills.map((f) => f._id) } },
    { withdrawnAt: 1 },
  ).lean();
  const gone = reread.filter((f) => f.withdrawnAt).map((f) => f._id);
  if (gone.length) await withdrawSignalsOfFills(deps, gone);
  return { fills: fills.length, signals: docs.length, published };
}
