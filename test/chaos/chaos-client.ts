import { randomInt } from 'node:crypto';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Real clients give up on a request after 30 s (client-contract: the SDK's timeout). */
const CLIENT_TIMEOUT_MS = 30_000;
/** How long one trade is retried (same key, same request) before the client counts it unresolved. */
const TRADE_DEADLINE_MS = 180_000;

/** The part of a TradeResult the client reads. */
export interface TradeAnswer {
  success: boolean;
  trade_id: string | null;
  fill_status: 'filled' | 'submitted' | 'unconfirmed' | 'failed';
  error_code: string | null;
  retryable: boolean;
  dry_run: boolean;
  position?: { shares_yes: number; shares_no: number };
}

export interface TradeBody {
  market_id: string;
  side: 'yes' | 'no';
  action: 'buy' | 'sell';
  amount?: number;
  shares?: number;
  dry_run?: boolean;
  idempotency_key?: string;
}

export interface ChaosAgent {
  agentId: string;
  key: string;
  /** Shares held per market side, as the last answer on that market said. */
  holdings: Map<string, { yes: number; no: number }>;
}

/** One live trade the client sent, under its idempotency key, and the answer it settled on. */
export interface KeyedTrade {
  agent: ChaosAgent;
  body: TradeBody & { idempotency_key: string };
  /** The final answer (HTTP 200), or the final non-retryable HTTP status. */
  answer: TradeAnswer | null;
  status: number;
  /** No final answer within TRADE_DEADLINE_MS. */
  unresolved: boolean;
}

/** Why a request was sent again with the same idempotency key. */
export interface RetryCounts {
  /** No answer: connection refused or reset, or the 30 s client timeout. */
  network: number;
  /** 503 (Redis or the database down, the key in flight), with its error code. */
  unavailable: Record<string, number>;
  /** Other 5xx: a finding unless the body explains it. */
  serverErrors: Record<string, number>;
  /** 200 `fill_status: submitted|unconfirmed`: the trade was recorded but not finished in time. */
  submitted: number;
  /** 200 `success: false, retryable: true`. */
  retryableRefusals: number;
}

export interface ClientStats {
  buys: number;
  sells: number;
  dryRuns: number;
  filled: number;
  refused: Record<string, number>;
  /** Final 4xx answers by status. */
  rejectedHttp: Record<string, number>;
  retries: RetryCounts;
  /** Trades that needed at least one retry to get their final answer. */
  retriedTrades: number;
  /** Deliberate resends of a finished trade (same key, same request), and how many answered differently. */
  replays: number;
  replayMismatches: string[];
  unresolved: number;
}

const pick = <T>(xs: readonly T[]): T => xs[randomInt(xs.length)]!;
const ipOf = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

async function call(base: string, method: string, path: string, body: unknown, key?: string, ip?: string) {
  return fetch(`${base}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(ip ? { 'x-forwarded-for': ip } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
  });
}

/** Retries a set-up call through kills of nothing (the run has not started) and transient 5xx. */
async function setupCall<T>(what: string, fn: () => Promise<Response>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const res = await fn().catch(() => null);
    if (res?.ok) return (await res.json()) as T;
    if (attempt >= 5) throw new Error(`${what}: ${res ? `${res.status} ${await res.text()}` : 'no answer'}`);
    await sleep(500 * attempt);
  }
}

/**
 * The randomized trading clients of a chaos run: agents registered from many addresses, buys,
 * sells, dry runs and deliberate resends, each live trade under its own idempotency key and resent
 * with that key and the identical request whenever the service does not give a final answer (no
 * answer, 5xx/503, `submitted`), as a real client does.
 */
export class ChaosClient {
  readonly agents: ChaosAgent[] = [];
  markets: string[] = [];
  readonly trades: KeyedTrade[] = [];
  readonly stats: ClientStats = {
    buys: 0,
    sells: 0,
    dryRuns: 0,
    filled: 0,
    refused: {},
    rejectedHttp: {},
    retries: { network: 0, unavailable: {}, serverErrors: {}, submitted: 0, retryableRefusals: 0 },
    retriedTrades: 0,
    replays: 0,
    replayMismatches: [],
    unresolved: 0,
  };
  private next = 0;
  private aborted = false;
  /** The API processes' base URLs: set-up goes to the first, trades (and each resend) to each in turn. */
  private readonly bases: string[];
  private readonly base: string;
  private turn = 0;

  constructor(
    bases: string | string[],
    private readonly runId: string,
  ) {
    this.bases = typeof bases === 'string' ? [bases] : bases;
    this.base = this.bases[0]!;
  }

  /** The next API process to send a trade to: a resend with the same key goes to another one. */
  private nextBase(): string {
    return this.bases[this.turn++ % this.bases.length]!;
  }

  /** Stops every retry loop (the service is gone): trades not answered yet count as unresolved. */
  abort(): void {
    this.aborted = true;
  }

  /** Registers `agents` agents (each from its own address) allowed to trade all day, and picks `markets` sim markets. */
  async setUp(agents: number, markets: number): Promise<void> {
    for (let i = 0; i < agents; i++) {
      const ip = ipOf();
      const reg = await setupCall<{ agent_id: string; api_key: string }>(`register agent ${i}`, () =>
        call(
          this.base,
          'POST',
          '/api/sdk/agents/register',
          { name: `chaos-${this.runId}-${i}` },
          undefined,
          ip,
        ),
      );
      await setupCall(`settings of agent ${i}`, () =>
        call(this.base, 'PATCH', '/api/sdk/user/settings', { max_trades_per_day: 1_000_000 }, reg.api_key),
      );
      this.agents.push({ agentId: reg.agent_id, key: reg.api_key, holdings: new Map() });
    }
    const list = await setupCall<{ markets: { id: string }[] }>('market list', () =>
      call(this.base, 'GET', `/api/sdk/markets?limit=${markets}&venue=sim`, undefined, this.agents[0]!.key),
    );
    this.markets = list.markets.map((m) => m.id);
    if (this.markets.length < markets) throw new Error(`only ${this.markets.length} sim markets listed`);
  }

  /** A random trade: a buy, a sell of part of what the agent holds, or a dry run of either. */
  private randomTrade(agent: ChaosAgent, dryRunShare: number, sellShare: number): TradeBody {
    const held = [...agent.holdings.entries()].flatMap(([market, h]) => [
      ...(h.yes > 0.001 ? [{ market, side: 'yes' as const, shares: h.yes }] : []),
      ...(h.no > 0.001 ? [{ market, side: 'no' as const, shares: h.no }] : []),
    ]);
    const r = Math.random();
    const dry = r < dryRunShare;
    if (held.length && (dry ? Math.random() < 0.5 : r < dryRunShare + sellShare)) {
      const h = pick(held);
      // Part of the position, sometimes all of it (a stale view may ask for more than is held: a refusal).
      const fraction = Math.random() < 0.2 ? 1 : 0.1 + Math.random() * 0.6;
      const shares = Math.max(0.00001, Math.floor(h.shares * fraction * 1e5) / 1e5);
      return { market_id: h.market, side: h.side, action: 'sell', shares, dry_run: dry };
    }
    return {
      market_id: pick(this.markets),
      side: Math.random() < 0.5 ? 'yes' : 'no',
      action: 'buy',
      amount: randomInt(100, 2501) / 100,
      dry_run: dry,
    };
  }

  /**
   * Sends `body` until the service gives a final answer: on no answer, a 5xx or 503, or
   * `submitted`, the same request (same key) is sent again after a pause.
   */
  private async untilFinal(
    agent: ChaosAgent,
    body: TradeBody,
  ): Promise<{ answer: TradeAnswer | null; status: number; retried: boolean; unresolved: boolean }> {
    const deadline = Date.now() + TRADE_DEADLINE_MS;
    const { retries } = this.stats;
    let retried = false;
    let retryableRefusals = 0;
    for (let attempt = 1; Date.now() < deadline && !this.aborted; attempt++) {
      const pause = (retryAfter?: string | null) =>
        sleep(
          retryAfter
            ? Math.min(Number(retryAfter) * 1000, 5000)
            : Math.min(250 * 2 ** Math.min(attempt, 3), 2000),
        );
      if (attempt > 1) retried = true;
      let res: Response;
      let parsed: TradeAnswer | null;
      try {
        res = await call(this.nextBase(), 'POST', '/api/sdk/trade', body, agent.key);
        parsed = (await res.json()) as TradeAnswer;
      } catch {
        retries.network++;
        await pause();
        continue;
      }
      if (res.status === 200) {
        const answer = parsed!;
        if (!answer.dry_run && (answer.fill_status === 'submitted' || answer.fill_status === 'unconfirmed')) {
          retries.submitted++;
          await sleep(1000);
          continue;
        }
        if (!answer.success && answer.retryable && ++retryableRefusals <= 3) {
          retries.retryableRefusals++;
          await pause();
          continue;
        }
        return { answer, status: 200, retried, unresolved: false };
      }
      const code = parsed?.error_code ?? String(res.status);
      if (res.status === 503 || res.status === 429) {
        retries.unavailable[code] = (retries.unavailable[code] ?? 0) + 1;
        await pause(res.headers.get('retry-after'));
        continue;
      }
      if (res.status >= 500) {
        retries.serverErrors[`${res.status} ${code}`] =
          (retries.serverErrors[`${res.status} ${code}`] ?? 0) + 1;
        await pause();
        continue;
      }
      return { answer: null, status: res.status, retried, unresolved: false };
    }
    return { answer: null, status: 0, retried, unresolved: true };
  }

  private remember(agent: ChaosAgent, body: TradeBody, answer: TradeAnswer | null) {
    if (!answer?.position || answer.dry_run) return;
    agent.holdings.set(body.market_id, { yes: answer.position.shares_yes, no: answer.position.shares_no });
  }

  /** One random trade by a random agent, to its final answer; with `replayShare`, resent once more after it. */
  async tradeOnce(opts: { dryRunShare: number; sellShare: number; replayShare: number }): Promise<void> {
    const agent = pick(this.agents);
    const body = this.randomTrade(agent, opts.dryRunShare, opts.sellShare);
    const { stats } = this;
    if (body.dry_run) {
      stats.dryRuns++;
      const { answer, status, unresolved } = await this.untilFinal(agent, body);
      if (unresolved) stats.unresolved++;
      else if (!answer) stats.rejectedHttp[status] = (stats.rejectedHttp[status] ?? 0) + 1;
      return;
    }
    if (body.action === 'buy') stats.buys++;
    else stats.sells++;
    const keyed = { ...body, idempotency_key: `chaos-${this.runId}-${this.next++}` };
    const first = await this.untilFinal(agent, keyed);
    const trade: KeyedTrade = { agent, body: keyed, ...first };
    this.trades.push(trade);
    if (first.retried) stats.retriedTrades++;
    if (first.unresolved) {
      stats.unresolved++;
      return;
    }
    if (!first.answer) {
      stats.rejectedHttp[first.status] = (stats.rejectedHttp[first.status] ?? 0) + 1;
      return;
    }
    this.remember(agent, keyed, first.answer);
    if (first.answer.success && first.answer.fill_status === 'filled') stats.filled++;
    else {
      const code = first.answer.error_code ?? first.answer.fill_status;
      stats.refused[code] = (stats.refused[code] ?? 0) + 1;
    }
    // A resend of a recorded trade must answer what the first request was answered. (A refusal given
    // before anything was recorded frees the key by design: a resend would be a new trade.)
    if (first.answer.trade_id && Math.random() < opts.replayShare) {
      stats.replays++;
      const again = await this.untilFinal(agent, keyed);
      const mismatch = replayMismatch(first.answer, again.answer);
      if (mismatch) stats.replayMismatches.push(`${keyed.idempotency_key}: ${mismatch}`);
    }
  }
}

/** How a replayed answer differs from the first one (trade, outcome), or null when it is the same. */
export function replayMismatch(first: TradeAnswer, again: TradeAnswer | null): string | null {
  if (!again) return 'no answer to the replay';
  if (again.trade_id !== first.trade_id) return `trade ${first.trade_id} replayed as ${again.trade_id}`;
  if (again.success !== first.success || again.fill_status !== first.fill_status)
    return `${first.fill_status}/${first.success} replayed as ${again.fill_status}/${again.success}`;
  return null;
}
