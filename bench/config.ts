// The knobs of every bench part, read once from the environment. `BENCH_QUICK=1` shrinks every part
// to a smoke run of a few seconds per row (CI); the full run is what docs/benchmarks.md reports.

export const QUICK = /^(1|true|yes)$/i.test(process.env.BENCH_QUICK ?? '');

function num(name: string, full: number, quick: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return QUICK ? quick : full;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number`);
  return value;
}

function list(name: string, full: number[], quick: number[], min = 1): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return QUICK ? quick : full;
  const values = raw.split(',').map((v) => Number(v.trim()));
  if (!values.length || values.some((v) => !Number.isFinite(v) || v < min))
    throw new Error(`${name} must be a comma-separated list of numbers ≥ ${min}`);
  return values;
}

/** `BENCH_SECONDS` sets every row's duration; otherwise trades 15 s, reads 10 s (quick: 3 s). */
const seconds = process.env.BENCH_SECONDS;

export const tradeConfig = {
  seconds: seconds ? Number(seconds) : QUICK ? 3 : 15,
  /** Discarded load before the first measured trade row, so the rows compare warm paths. */
  warmUpSeconds: QUICK ? 1 : 3,
  agents: num('BENCH_TRADE_AGENTS', 100, 100),
  markets: num('BENCH_TRADE_MARKETS', 200, 200),
  /** Closed-loop rows: that many requests in flight, as fast as the service answers. */
  connections: list('BENCH_TRADE_CONNECTIONS', [16, 64], [16, 64]),
  /** Offered loads of the latency curve (trades and the no-op floor), each at `pacedConnections`. */
  rates: list('BENCH_RATES', [50, 100, 200, 400, 800, 1600], [100, 200, 400]),
  pacedConnections: 64,
  /**
   * The 2 + 2-process row (bench/split-trades.ts): the same loads on 2 API and 2 worker processes.
   * `BENCH_TRADE_SPLIT=0` leaves it out.
   */
  split: {
    enabled: !/^(0|false|no)$/i.test(process.env.BENCH_TRADE_SPLIT ?? ''),
    apis: 2,
    workers: 2,
    connections: list('BENCH_SPLIT_CONNECTIONS', [16, 64], [16, 64]),
    rates: list('BENCH_SPLIT_RATES', [100], [100]),
  },
};

export const readConfig = {
  seconds: seconds ? Number(seconds) : QUICK ? 3 : 10,
  markets: num('BENCH_READ_MARKETS', 100_000, 10_000),
  agents: num('BENCH_READ_AGENTS', 10_000, 10_000),
  connections: num('BENCH_READ_CONNECTIONS', 100, 100),
  /** The paced read rows (p99 goal). */
  rate: 200,
};

export const scalingConfig = {
  seconds: seconds ? Number(seconds) : QUICK ? 3 : 15,
  marketSteps: list('BENCH_SCALING_MARKETS', [1_000, 10_000, 100_000], [1_000, 10_000]),
  agentSteps: list('BENCH_SCALING_AGENTS', [1_000, 10_000], [1_000, 10_000]),
  /** Recorded trades (with their ledger entries, positions and fill events), in increasing order. */
  historySteps: list('BENCH_SCALING_HISTORY', [0, 100_000, 1_000_000], [0, 10_000, 100_000], 0),
  /**
   * The history axis's own stack (bench/scaling.ts says why it has one): its seeded catalogue and
   * agent population, on which the history is recorded.
   */
  historyMarkets: num('BENCH_SCALING_HISTORY_MARKETS', 1_000, 1_000),
  historyAgents: num('BENCH_SCALING_HISTORY_AGENTS', 10_000, 10_000),
  /** `BENCH_SCALING_AXES=history` (or any of markets, agents, history, comma-separated) runs only those. */
  axes: axes('BENCH_SCALING_AXES'),
};

export type ScalingAxis = 'markets' | 'agents' | 'history';

function axes(name: string): Set<ScalingAxis> {
  const all: ScalingAxis[] = ['markets', 'agents', 'history'];
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return new Set(all);
  const picked = raw.split(',').map((v) => v.trim());
  const unknown = picked.filter((v) => !all.includes(v as ScalingAxis));
  if (unknown.length || !picked.length)
    throw new Error(
      `${name} must be a comma-separated list of ${all.join(', ')} (got ${unknown.join(', ')})`,
    );
  return new Set(picked as ScalingAxis[]);
}

export const coldStartConfig = {
  idleSeconds: num('BENCH_IDLE_SECONDS', 600, 5),
};

/**
 * The Reactor row (bench/reactor.bench.ts, issue 37): `agents` agents each watching
 * `walletsPerAgent` of `wallets` whale wallets, `fillRate` fills a second by those wallets mined on
 * the emulated chain in blocks of `blockMs` (Polygon's 2 s by default).
 */
export const reactorConfig = {
  seconds: seconds ? Number(seconds) : QUICK ? 5 : 30,
  warmUpSeconds: QUICK ? 3 : 6,
  /** Each idle sample (no stream, then every stream open): RSS and CPU of the service process. */
  idleSeconds: QUICK ? 3 : 10,
  agents: num('BENCH_REACTOR_AGENTS', 1_000, 100),
  walletsPerAgent: 10,
  wallets: num('BENCH_REACTOR_WALLETS', 1_000, 100),
  fillRate: num('BENCH_REACTOR_FILL_RATE', 100, 20),
  blockMs: num('BENCH_REACTOR_BLOCK_MS', 2_000, 2_000),
  /** The emulator markets the fills spread over (imported by the Reactor during the warm-up). */
  markets: num('BENCH_REACTOR_MARKETS', 20, 5),
  /** Seed of the watchlists and of the fills' wallets, sides and sizes. */
  seed: 37,
  /**
   * `BENCH_REACTOR_DATABASE=memory`: mongo-java-server's memory backend (as the read bench) instead
   * of the embedded default's H2 file, to tell the database's share of the latency.
   */
  memoryDatabase: process.env.BENCH_REACTOR_DATABASE === 'memory',
};
