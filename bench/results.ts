/** The result shapes of the bench parts, shared by each part and the report (report.ts). */
import type { Row } from './measure.js';
import type { ProcessKind } from './process-cpu.js';

export interface ColdStartResults {
  idleSeconds: number;
  /** The first trade after the start banner (the agent was registered and listed markets first). */
  firstAfterStartMs: number;
  /** The first trade after `idleSeconds` without a request. */
  firstAfterIdleMs: number;
  /** The median of the next 10 trades, one at a time: the warm reference. */
  warmMs: number;
}

export interface CommandCount {
  /** Commands of one buy, alone on the service. */
  api: number;
  worker: number;
  /** `find agents`, … in the order the driver started them. */
  apiCommands: string[];
  workerCommands: string[];
  /** Per buy when `batch` buys by different agents arrive at once (what batching would amortise). */
  batch: number;
  apiPerBuyInBatch: number;
  workerPerBuyInBatch: number;
  /** The batch's commands by kind with their counts (`insert trades ×16`), most frequent first. */
  apiBatchCommands?: string[];
  workerBatchCommands?: string[];
  /** Commands seen in one idle second before the buy (nothing else should run). */
  backgroundPerSecond: number;
}

export interface ReadResults {
  seconds: number;
  markets: number;
  agents: number;
  connections: number;
  seededSeconds: number;
  bareHttp: Row;
  /** Closed loop at `connections`; `key` names the rows the goals and the chart pick. */
  closed: (Row & { key: string })[];
  /** Paced at `rate` req/s. */
  paced: (Row & { key: string })[];
  rate: number;
}

export interface ScalingResults {
  seconds: number;
  connections: number;
  readRate: number;
  /** Trade rows by number of seeded markets (the service's own catalogue comes on top). */
  markets: { markets: number; trade: Row }[];
  /** Read rows (key → row) by number of seeded agents. */
  agents: { agents: number; reads: (Row & { key: string })[] }[];
  /**
   * Per-agent read rows (key → row) by number of recorded trades; `seededSeconds`: what inserting
   * that step's history and re-marking the leaderboard took. Absent in results saved before it.
   */
  history?: {
    trades: number;
    seededSeconds: number;
    reads: (Row & { key: string })[];
    /** Why this step could not be seeded (its reads are then empty and the axis stops there). */
    failed?: string;
  }[];
  /** The history axis's own catalogue and population (absent in results saved before it had its own stack). */
  historyMarkets?: number;
  historyAgents?: number;
}

export interface TradeResults {
  seconds: number;
  agents: number;
  markets: number;
  bareHttp: Row;
  /**
   * Closed loop at each connection count: the no-op floor and sim trades, and the CPU milliseconds
   * per trade each kind of the stack's processes spent (absent in results saved before it was measured).
   */
  closed: {
    connections: number;
    noOp: Row;
    trade: Row;
    cpuMsPerTrade?: Partial<Record<ProcessKind, number>>;
  }[];
  /** Paced at each offered load (req/s), `pacedConnections` at most in flight. */
  curve: { rate: number; noOp: Row; trade: Row }[];
  /** The same trade load on the roles split across processes (bench/split-trades.ts); absent when left out. */
  split?: SplitTradeResults;
}

/** Trades against `apis` API and `workers` worker processes (and `jobs` jobs processes) on one Redis and one database. */
export interface SplitTradeResults {
  apis: number;
  workers: number;
  jobs: number;
  seconds: number;
  /** Closed loop at each connection count, spread over the APIs. */
  closed: { connections: number; trade: Row }[];
  /** Paced at each offered load (req/s), the requests going to the APIs in turn. */
  paced: { rate: number; trade: Row }[];
}

/** Percentiles of one latency (ms) over `count` samples. */
export interface Latency {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** The Reactor row (bench/reactor.bench.ts). */
export interface ReactorResults {
  agents: number;
  walletsPerAgent: number;
  wallets: number;
  markets: number;
  fillRate: number;
  seconds: number;
  blockMs: number;
  /** How the watchlists were set (`api`: PATCH /api/sdk/reactor/config per agent) and what setting them took. */
  configVia: 'api';
  /** mongo-java-server's backend: the embedded default's H2 file, or memory (BENCH_REACTOR_DATABASE). */
  database: 'h2 file' | 'memory';
  setupSeconds: { register: number; config: number; streams: number };
  /** Fills sent in the measured window, and admin fills the emulator refused. */
  fills: number;
  fillErrors: number;
  /** Fills a second actually made (the emulator answering slower than the rate shows here). */
  fillRateMade: number;
  /** SSE events that reached an agent not watching the fill's wallet (should be 0). */
  misdelivered: number;
  /** The measured window: the fills and the wait for the last events. */
  loadSeconds: number;
  /** CPU % of one core by kind of the stack's processes over the window (process-cpu.ts kinds). */
  stackCpuPercent: Partial<Record<ProcessKind, number>>;
  /** The bench's own process (the emulator and the SSE clients): CPU % and its event loop's p99 delay. */
  benchProcess: { cpuPercent: number; loopDelayP99Ms: number };
  /** Fills per mined block in the window (mean). */
  fillsPerBlock: number;
  /** Signals the watchlists call for (one per watching agent of each fill's wallet), found, and SSE events received. */
  signalsExpected: number;
  signalsFound: number;
  sseEvents: number;
  /** Fill mined (block time) → the whale's leg stored by the feed (`venue_fills.recordedAt`). */
  toFill?: Latency;
  /** Fill mined → signal written (`reactor_signals.createdAt`). */
  toSignal: Latency;
  /** Fill mined → signal's event appended to the Reactor event stream (`publishedAt`). */
  toPublished?: Latency;
  /** Fill mined → `reactor_event` received by the agent's SSE client. */
  toSse: Latency;
  streams: { open: number; failed: number; firstFailure?: string };
  /** The service process (API + workers + jobs): RSS MiB and CPU % of one core. */
  service: {
    idle: { rssMiB: number; cpuPercent: number };
    idleWithStreams: { rssMiB: number; cpuPercent: number };
    load: { rssMiB: number; rssPeakMiB: number; cpuPercent: number };
  };
}
