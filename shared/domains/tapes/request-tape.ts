import { createHash } from 'node:crypto';
import { relative } from 'node:path';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError, rateLimited, unavailable } from '../../infra/errors.js';
import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import { builtSlice, SLICE_TOO_LARGE, TAPE_CUT_FAILED, type TapeManifest } from './slice-tape.js';
import { coverageDays, readStore } from './tape-coverage.js';
import { tapeKey } from './tape-secret.js';
import { revisionOf, tapeDirs } from './tape-store.js';
import { signTapeUrl, TAPE_FILES, type TapeFile } from './tape-urls.js';
import { badWindow, daysOf, parseWindow, type TapeWindow } from './tape-window.js';

export type RequestTapeDeps = Pick<InfraDeps, 'env' | 'clock' | 'queues' | 'redis' | 'log'> & {
  models: Pick<Models, 'TapeRecorder'>;
};

/** `POST /api/backtest/tape`'s body, as the official client sends it. */
export interface TapeRequest {
  t0: string;
  t1: string;
  max_markets: number;
  min_volume: number;
  q?: string | null;
}

/** The most markets a slice serves, and with `q` (a narrower ask may reach further down the volumes). */
export const MAX_MARKETS = 1000;
export const MAX_MARKETS_WITH_Q = 5000;

/** What a tape is cut from, fixed before it is cut: its key names exactly this. */
interface TapePlan {
  key: string;
  datasetRev: string;
  window: TapeWindow;
  maxMarkets: number;
  minVolume: number;
  q: string | null;
  marketFiles: string[];
  printFiles: string[];
}

/**
 * Plans a tape: the window checked against the limits and the store's coverage, and the store
 * files it reads (every market file, the print files of its days). The key hashes the files'
 * names (the dataset revision of this window), the window, the cap, the volume floor and `q`.
 */
export async function planTape(deps: RequestTapeDeps, body: TapeRequest): Promise<TapePlan> {
  const window = parseWindow(body.t0, body.t1, deps.env.TAPE_MAX_WINDOW_DAYS);
  const files = readStore(deps.env.DATA_DIR);
  const recorder = await deps.models.TapeRecorder.findById('recorder', { lastRunAt: 1 }).lean();
  const coverage = coverageDays(files, recorder?.lastRunAt ?? null, deps.clock());
  const coverageEnd = Date.parse(`${coverage.coverage_t1}T00:00:00Z`) / 1000;
  if (window.endSec > coverageEnd)
    throw badWindow(
      `the window ${window.t0} to ${window.t1} reaches past what tapes cover (up to ${coverage.coverage_t1})`,
      `Send a t1 on or before ${coverage.coverage_t1} (GET /api/backtest/tape/coverage).`,
    );
  const q = body.q?.trim().toLowerCase() || null;
  const maxMarkets = Math.max(
    1,
    Math.min(Math.floor(body.max_markets), q ? MAX_MARKETS_WITH_Q : MAX_MARKETS),
  );
  const days = new Set(daysOf(window));
  const store = tapeDirs(deps.env.DATA_DIR).store;
  const marketFiles = files.markets.map((f) => relative(store, f));
  const printFiles = files.prints.filter((p) => days.has(p.day)).map((p) => relative(store, p.file));
  const datasetRev = revisionOf([...marketFiles, ...printFiles]);
  const key = createHash('sha256')
    .update(JSON.stringify([datasetRev, window.startSec, window.endSec, maxMarkets, body.min_volume, q]))
    .digest('hex')
    .slice(0, 32);
  return { key, datasetRev, window, maxMarkets, minVolume: body.min_volume, q, marketFiles, printFiles };
}

/** The answer of `POST /api/backtest/tape` (client-contract §9, issue 25's interface). */
export interface TapeAnswer {
  key: string;
  urls: Record<'markets' | 'quant' | 'manifest', string>;
  expires_at: string;
  markets: number;
  quant_rows: number;
  cached: boolean;
  t0: string;
  t1: string;
  dataset_rev: string;
  markets_requested: number;
  markets_matching_filter: number;
  markets_served: number;
  max_markets_served: number;
  truncated: boolean;
  sources: TapeManifest['sources'];
}

/**
 * A tape for an agent: answered from a slice already built (free), or cut by the tapes worker
 * (one of the agent's TAPE_REQUESTS_PER_MINUTE; identical requests at once wait on one cut). The
 * point pays for the cut's work: a window without prints has nothing to cut (its tape is empty and
 * free), and a cut the service failed gives the point back; one refused as too large keeps it (the
 * work of counting its prints was done, for the request's own asking).
 */
export async function requestTape(
  deps: RequestTapeDeps,
  agentId: string,
  body: TapeRequest,
  origin: string,
): Promise<TapeAnswer> {
  const plan = await planTape(deps, body);
  const dirs = tapeDirs(deps.env.DATA_DIR);
  const built = builtSlice(dirs, plan.key);
  if (built) return answer(deps, plan, built, body, origin, true);
  const quota = tapeQuota(deps);
  const spent = plan.printFiles.length > 0;
  if (spent) await takeTapeQuota(quota, deps.env.TAPE_REQUESTS_PER_MINUTE, agentId);
  const job = {
    key: plan.key,
    datasetRev: plan.datasetRev,
    t0: plan.window.t0,
    t1: plan.window.t1,
    startSec: plan.window.startSec,
    endSec: plan.window.endSec,
    maxMarkets: plan.maxMarkets,
    minVolume: plan.minVolume,
    q: plan.q,
    marketFiles: plan.marketFiles,
    printFiles: plan.printFiles,
  };
  // A 503 tells the caller to ask again in seconds: that ask must cut again, not meet the failed
  // cut that BullMQ keeps under the tape's id for a while. A failure of the request's own (too
  // large) or of the data (a damaged file) is kept and answered again without another cut.
  const outcome = await deps.queues
    .discardFailed('slice-tape', job, (reason) => cutFailure(reason).retryable)
    .then(() => deps.queues.enqueueAndWait<TapeManifest>('slice-tape', job, deps.env.TAPE_WAIT_MS))
    .catch(async (err: unknown) => {
      if (spent) await giveBackTapeQuota(deps, quota, agentId);
      throw err;
    });
  if (outcome.state === 'completed') return answer(deps, plan, outcome.result, body, origin, false);
  // Still being cut: the tape comes of it, and asking again answers it free.
  if (outcome.state === 'pending')
    throw new AppError(
      503,
      'tape_pending',
      'The tape is still being cut',
      'Send the same request again in a few seconds: it waits on the same cut and costs nothing once built.',
      { retryable: true, headers: { 'Retry-After': '5' } },
    );
  const failure = cutFailure(outcome.reason);
  if (spent && failure.code !== SLICE_TOO_LARGE) await giveBackTapeQuota(deps, quota, agentId);
  throw failure;
}

/** The answer to a cut that failed: too large (the request's), refused by the engine (ours), or an outage. */
function cutFailure(reason: string): AppError {
  if (reason.startsWith(SLICE_TOO_LARGE))
    return new AppError(
      422,
      SLICE_TOO_LARGE,
      `This tape is too large: ${reason.slice(SLICE_TOO_LARGE.length + 2)}`,
      'Ask for a shorter window, fewer markets (max_markets), a higher min_volume, or a q filter.',
      { retryable: false },
    );
  if (reason.startsWith(TAPE_CUT_FAILED))
    return new AppError(
      500,
      TAPE_CUT_FAILED,
      'The tape could not be cut (a fault of the service, not of the request)',
      'Do not retry this window: report the request_id to the operator.',
      { retryable: false, cause: new Error(reason) },
    );
  return unavailable('The backtest tape store', new Error(reason));
}

const tapeQuota = (deps: RequestTapeDeps) =>
  new RateLimiterRedis({
    storeClient: deps.redis,
    keyPrefix: `${deps.env.QUEUE_PREFIX}:rl:tape`,
    points: deps.env.TAPE_REQUESTS_PER_MINUTE,
    duration: 60,
  });

async function takeTapeQuota(quota: RateLimiterRedis, points: number, agentId: string) {
  try {
    await quota.consume(agentId);
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw unavailable('The rate limiter', err);
    throw rateLimited(
      points,
      'new backtest tapes per minute per agent (tapes already built are free)',
      err.msBeforeNext,
    );
  }
}

/** A point back for a tape that did not come (best effort: the answer is the failure's either way). */
async function giveBackTapeQuota(deps: RequestTapeDeps, quota: RateLimiterRedis, agentId: string) {
  await quota.reward(agentId, 1).catch((err: unknown) => {
    deps.log.warn({ err, agentId }, 'backtest tape quota point not given back');
  });
}

function answer(
  deps: RequestTapeDeps,
  plan: TapePlan,
  m: TapeManifest,
  body: TapeRequest,
  origin: string,
  cached: boolean,
): TapeAnswer {
  const secret = tapeKey(deps.env, 'tape-urls');
  const expires = Math.floor(deps.clock().getTime() / 1000) + deps.env.TAPE_URL_TTL_SECONDS;
  const url = (file: TapeFile) => signTapeUrl(secret, origin, plan.key, file, expires);
  const [markets, quant, manifest] = TAPE_FILES;
  return {
    key: plan.key,
    urls: { markets: url(markets), quant: url(quant), manifest: url(manifest) },
    expires_at: new Date(expires * 1000).toISOString(),
    markets: m.markets,
    quant_rows: m.quant_rows,
    cached,
    t0: plan.window.t0,
    t1: plan.window.t1,
    dataset_rev: m.dataset_rev,
    markets_requested: body.max_markets,
    markets_matching_filter: m.markets_matching_filter,
    markets_served: m.markets,
    max_markets_served: m.max_markets_served,
    truncated: m.truncated,
    sources: m.sources,
  };
}
