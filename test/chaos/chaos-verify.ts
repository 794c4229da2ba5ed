import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import mongoose from 'mongoose';
import {
  idempotencyKeyPattern,
  tradeIdOfStoredIdempotency,
} from '../../shared/domains/trading/idempotency.js';
import { scanKeys } from '../../shared/infra/redis.js';
import { replayMismatch, type ChaosAgent, type KeyedTrade, type TradeAnswer } from './chaos-client.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Statuses of a trade that has moved money (or still may). */
const LIVE_STATUSES = ['pending', 'executing', 'open', 'filled'];

export interface AuditSummary {
  ok: boolean;
  difference_count: number;
  behind: { agents: number; markets: number };
  checked: { agents: number; positions: number; markets: number };
  differences: unknown[];
}

export interface Verification {
  /** Trades answered `filled` to the client. */
  acknowledgedFilled: number;
  /** …of which the database has none, or not as filled. Must be 0. */
  acknowledgedButLost: string[];
  /** Idempotency keys with more than one trade that moved money. Must be 0. */
  doubled: string[];
  /** Trades filled in the database under a key whose client was answered something else. Must be 0. */
  filledButNotAcknowledged: string[];
  /** Trades still pending or executing when the run ended (after waiting for them). */
  unfinished: number;
  /** …as `id status resumes updatedAt`, to look them up. */
  unfinishedTrades: string[];
  /** Idempotency values in Redis naming a trade the database does not have. Must be 0. */
  danglingIdempotency: string[];
  idempotencyKeysInRedis: number;
  /** Every recorded trade resent with its key after the run: answers that differ from the first. Must be 0. */
  replayed: number;
  replayMismatches: string[];
  audit: AuditSummary;
}

interface StoredTrade {
  _id: string;
  agentId: string;
  idempotencyKey: string | null;
  status: string;
  resumeCount?: number;
  updatedAt?: Date;
}

async function waitForFinishedTrades(trades: mongoose.mongo.Collection<StoredTrade>, ms: number) {
  const deadline = Date.now() + ms;
  for (;;) {
    const open = await trades.countDocuments({ status: { $in: ['pending', 'executing'] } });
    if (open === 0 || Date.now() > deadline) return open;
    await sleep(1000);
  }
}

/** Where a trade's execute job stands in BullMQ, for the report of a trade that never finished. */
export async function jobOf(redisUrl: string, tradeId: string): Promise<string> {
  const queue = new Queue('trades', { connection: { url: redisUrl }, prefix: 'bull' });
  try {
    const job = await queue.getJob(`execute-trade-${tradeId}`);
    if (!job) return 'no job';
    const at = (ms: number | undefined) => (ms ? new Date(ms).toISOString() : '-');
    return `job ${await job.getState()} (attempts ${job.attemptsMade}, started ${job.attemptsStarted}, added ${at(job.timestamp)}, processed ${at(job.processedOn)}, finished ${at(job.finishedOn)}${job.failedReason ? `, failed "${job.failedReason}"` : ''})`;
  } catch (err) {
    return `job unreadable (${(err as Error).message})`;
  } finally {
    await queue.close();
  }
}

/** Resends `trades` (same key, same request), a few at a time, and lists answers that differ from the first. */
async function replayAll(
  base: string,
  trades: KeyedTrade[],
  concurrency: number,
): Promise<{ replayed: number; mismatches: string[] }> {
  const mismatches: string[] = [];
  let next = 0;
  const one = async (t: KeyedTrade & { answer: TradeAnswer }) => {
    for (let attempt = 0; attempt < 10; attempt++) {
      const res = await fetch(`${base}/api/sdk/trade`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${t.agent.key}` },
        body: JSON.stringify(t.body),
        signal: AbortSignal.timeout(30_000),
      }).catch(() => null);
      if (res?.status === 200) {
        const mismatch = replayMismatch(t.answer, (await res.json()) as TradeAnswer);
        if (mismatch) mismatches.push(`${t.body.idempotency_key}: ${mismatch}`);
        return;
      }
      await sleep(500);
    }
    mismatches.push(`${t.body.idempotency_key}: no answer to the replay`);
  };
  const recorded = trades.filter((t): t is KeyedTrade & { answer: TradeAnswer } => !!t.answer?.trade_id);
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < recorded.length) await one(recorded[next++]!);
    }),
  );
  return { replayed: recorded.length, mismatches };
}

/**
 * After a chaos run: once no trade is pending or executing any more, checks every trade the client
 * was answered against the database, every idempotency value in Redis against the database, every
 * recorded trade's key against its first answer (resent over HTTP), and the ledger audit.
 */
export async function verifyRun(opts: {
  base: string;
  redisUrl: string;
  mongoUri: string;
  operatorToken: string;
  agents: ChaosAgent[];
  trades: KeyedTrade[];
  keyPrefix: string;
}): Promise<Verification> {
  const conn = await mongoose.createConnection(opts.mongoUri, { dbName: 'agent_trading' }).asPromise();
  const redis = new Redis(opts.redisUrl, { maxRetriesPerRequest: 3 });
  try {
    const tradesCol = conn.db!.collection<StoredTrade>('trades');
    // Resent first: a resend that places a second trade is then counted as doubled below.
    const unfinished = await waitForFinishedTrades(tradesCol, 180_000);

    const stored = await tradesCol
      .find(
        { agentId: { $in: opts.agents.map((a) => a.agentId) } },
        { projection: { _id: 1, agentId: 1, idempotencyKey: 1, status: 1, resumeCount: 1, updatedAt: 1 } },
      )
      .toArray();
    const byId = new Map(stored.map((t) => [t._id, t]));
    const liveByKey = new Map<string, StoredTrade[]>();
    for (const t of stored) {
      if (!t.idempotencyKey?.startsWith(opts.keyPrefix) || !LIVE_STATUSES.includes(t.status)) continue;
      const k = `${t.agentId}/${t.idempotencyKey}`;
      liveByKey.set(k, [...(liveByKey.get(k) ?? []), t]);
    }

    const acknowledged = opts.trades.filter((t) => t.answer?.success && t.answer.fill_status === 'filled');
    const acknowledgedButLost = acknowledged
      .filter((t) => byId.get(t.answer!.trade_id!)?.status !== 'filled')
      .map(
        (t) =>
          `${t.body.idempotency_key} → ${t.answer!.trade_id} (${byId.get(t.answer!.trade_id!)?.status ?? 'missing'})`,
      );
    const doubled = [...liveByKey.entries()]
      .filter(([, ts]) => ts.length > 1)
      .map(([k, ts]) => `${k}: ${ts.map((t) => `${t._id} ${t.status}`).join(', ')}`);
    const answered = new Map(opts.trades.map((t) => [`${t.agent.agentId}/${t.body.idempotency_key}`, t]));
    const filledButNotAcknowledged = [...liveByKey.entries()]
      .flatMap(([k, ts]) => ts.filter((t) => t.status === 'filled').map((t) => ({ k, t })))
      .filter(({ k, t }) => {
        const a = answered.get(k)?.answer;
        return !(a?.success && a.fill_status === 'filled' && a.trade_id === t._id);
      })
      .map(
        ({ k, t }) =>
          `${k}: ${t._id} answered ${JSON.stringify(answered.get(k)?.answer?.fill_status ?? answered.get(k)?.status ?? 'nothing')}`,
      );

    const idemKeys = await scanKeys(redis, idempotencyKeyPattern('bull'));
    const danglingIdempotency: string[] = [];
    for (let i = 0; i < idemKeys.length; i += 500) {
      const chunk = idemKeys.slice(i, i + 500);
      const values = await redis.mget(...chunk);
      const pointing = chunk
        .map((key, j) => ({ key, tradeId: values[j] ? tradeIdOfStoredIdempotency(values[j]) : null }))
        .filter((p): p is { key: string; tradeId: string } => p.tradeId !== null);
      const found = await tradesCol
        .find({ _id: { $in: pointing.map((p) => p.tradeId) } }, { projection: { _id: 1 } })
        .toArray();
      const existing = new Set(found.map((t) => t._id));
      for (const p of pointing)
        if (!existing.has(p.tradeId)) danglingIdempotency.push(`${p.key} → ${p.tradeId}`);
    }

    const { replayed, mismatches } = await replayAll(opts.base, opts.trades, 8);

    const auditRes = await fetch(`${opts.base}/api/admin/audit?max_differences=1000`, {
      headers: { authorization: `Bearer ${opts.operatorToken}` },
      signal: AbortSignal.timeout(120_000),
    });
    if (auditRes.status !== 200) throw new Error(`audit: ${auditRes.status} ${await auditRes.text()}`);
    const audit = (await auditRes.json()) as AuditSummary;

    return {
      acknowledgedFilled: acknowledged.length,
      acknowledgedButLost,
      doubled,
      filledButNotAcknowledged,
      unfinished,
      unfinishedTrades: await Promise.all(
        stored
          .filter((t) => t.status === 'pending' || t.status === 'executing')
          .map(
            async (t) =>
              `${t._id} ${t.status} resumes ${t.resumeCount ?? 0} updated ${t.updatedAt?.toISOString()}, ${await jobOf(opts.redisUrl, t._id)}`,
          ),
      ),
      danglingIdempotency,
      idempotencyKeysInRedis: idemKeys.length,
      replayed,
      replayMismatches: mismatches,
      audit,
    };
  } finally {
    redis.disconnect();
    await conn.close();
  }
}
