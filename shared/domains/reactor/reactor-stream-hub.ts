import { randomUUID } from 'node:crypto';
import { AppError, outage } from '../../infra/errors.js';
import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Logger } from '../../infra/logger.js';
import { createRedisConnection, type RedisClient, type RedisTarget } from '../../infra/redis.js';
import { lastReactorEventId, tailReactorEvents, type ReactorStreamEntry } from './reactor-event-stream.js';
import { releaseStreamSlot, renewStreamSlots, takeStreamSlot, type StreamSlot } from './stream-slots.js';

/** One open stream as the hub sees it: where its agent's entries go (an SSE response, in the API). */
export interface ReactorStreamSink {
  deliver(entry: ReactorStreamEntry): void;
  /** Nothing else to say: a keep-alive for proxies and for the client's own dead-connection check. */
  heartbeat(): void;
  /** Ends the stream for a shutdown; resolves once it has ended. */
  end(): Promise<void>;
}

export interface ReactorStreamHubOptions {
  /** The request-path (fail-fast) connection: where the tail starts, the per-key slots. */
  redis: RedisClient;
  /** Where Redis is, for the tail's own blocking connection. */
  target: RedisTarget;
  prefix: string;
  log: Logger;
  heartbeatMs: number;
  maxPerKey: number;
}

/** How long one XREAD waits for entries (the tail is woken by a new entry; stop disconnects it). */
const TAIL_BLOCK_MS = 5000;
/** Entries taken per XREAD. */
const TAIL_BATCH = 500;
/** The pause after a failed read (Redis restarting): the retrying connection waits for it meanwhile. */
const TAIL_RETRY_MS = 1000;

/**
 * The tail of the Reactor event stream: XREAD BLOCK from where it started, on a connection of its
 * own (a blocking read holds its connection), handing each batch on in order.
 */
class StreamTail {
  readonly ready: Promise<void>;
  private stopped = false;
  private blocking?: RedisClient;

  constructor(
    private readonly opts: ReactorStreamHubOptions,
    private readonly onEntries: (entries: ReactorStreamEntry[]) => void,
  ) {
    // Live delivery starts at the stream's end as it is now; an earlier entry is a resume's replay.
    const start = lastReactorEventId(opts.redis, opts.prefix);
    this.ready = start.then(() => undefined);
    start.then(
      (cursor) =>
        this.follow(cursor).catch((err) => opts.log.error({ err }, 'the Reactor event stream tail stopped')),
      () => undefined,
    );
  }

  private async follow(from: string): Promise<void> {
    if (this.stopped) return;
    const blocking = createRedisConnection(this.opts.target, 'retrying', 'reactor-stream-tail');
    this.blocking = blocking;
    // A connection error is retried by the connection itself; the read below reports what matters.
    blocking.on('error', () => undefined);
    blocking.connect().catch(() => undefined);
    let cursor = from;
    while (!this.stopped) {
      let entries: ReactorStreamEntry[];
      try {
        const read = await tailReactorEvents(blocking, this.opts.prefix, cursor, TAIL_BLOCK_MS, TAIL_BATCH);
        entries = read.entries;
        cursor = read.lastId;
      } catch (err) {
        if (this.stopped) break;
        this.opts.log.warn({ err }, 'reading the Reactor event stream failed; trying again');
        await new Promise((r) => setTimeout(r, TAIL_RETRY_MS).unref());
        continue;
      }
      if (this.stopped) break;
      if (entries.length) this.onEntries(entries);
    }
  }

  /** Nothing is handed on after this; the blocking read is cut short by its connection closing. */
  stop(): void {
    this.stopped = true;
    this.blocking?.disconnect();
  }
}

/**
 * This API process's open Reactor event streams, fed by one tail of the stream however many
 * connections are open: each entry goes to the open streams of its agent. The tail and the
 * heartbeat run only while a stream is open. The number of streams one agent holds is bounded
 * across every process (stream-slots.ts), each connection's slot renewed on every heartbeat.
 */
export class ReactorStreamHub {
  private readonly slots = new Map<ReactorStreamSink, StreamSlot>();
  private readonly byAgent = new Map<string, Set<ReactorStreamSink>>();
  private tail?: StreamTail;
  private heartbeat?: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly opts: ReactorStreamHubOptions) {}

  /** A lapsed lease frees the slot of a connection whose process died without releasing it. */
  get leaseMs(): number {
    return Math.max(3 * this.opts.heartbeatMs, 30_000);
  }

  /** Open streams in this process. */
  get size(): number {
    return this.slots.size;
  }

  /**
   * Registers a stream of `agentId`'s entries; resolves once every entry appended from then on
   * reaches `sink`, with the function that unregisters it. Refused with 429 past the key's bound,
   * with 503 once the process is shutting down.
   */
  async open(agentId: string, sink: ReactorStreamSink): Promise<() => void> {
    if (this.closed) throw shuttingDown();
    const slot: StreamSlot = { agentId, connectionId: randomUUID() };
    const { redis, prefix, maxPerKey } = this.opts;
    if (!(await takeStreamSlot(redis, prefix, slot, maxPerKey, this.leaseMs)))
      throw tooManyStreams(maxPerKey, this.leaseMs);
    if (this.closed) {
      this.releaseSlot(slot);
      throw shuttingDown();
    }
    this.slots.set(sink, slot);
    let agentSinks = this.byAgent.get(agentId);
    if (!agentSinks) this.byAgent.set(agentId, (agentSinks = new Set()));
    agentSinks.add(sink);
    const tail = (this.tail ??= new StreamTail(this.opts, (entries) => this.dispatch(entries)));
    this.heartbeat ??= setInterval(() => this.beat(), this.opts.heartbeatMs);
    try {
      await tail.ready;
    } catch (err) {
      this.remove(sink);
      // The next stream tries a tail of its own.
      if (this.tail === tail) {
        tail.stop();
        this.tail = undefined;
      }
      throw err;
    }
    return () => this.remove(sink);
  }

  private dispatch(entries: ReactorStreamEntry[]): void {
    for (const entry of entries) {
      for (const sink of this.byAgent.get(entry.agentId) ?? []) sink.deliver(entry);
    }
  }

  private beat(): void {
    for (const sink of this.slots.keys()) sink.heartbeat();
    renewStreamSlots(this.opts.redis, this.opts.prefix, [...this.slots.values()], this.leaseMs).catch((err) =>
      this.opts.log.warn(
        { err },
        'renewing the Reactor streams’ slots failed; they lapse unless a later beat renews them',
      ),
    );
  }

  private remove(sink: ReactorStreamSink): void {
    const slot = this.slots.get(sink);
    if (!slot) return;
    this.slots.delete(sink);
    const agentSinks = this.byAgent.get(slot.agentId);
    agentSinks?.delete(sink);
    if (agentSinks?.size === 0) this.byAgent.delete(slot.agentId);
    this.releaseSlot(slot);
    if (this.slots.size === 0) this.idle();
  }

  private releaseSlot(slot: StreamSlot): void {
    releaseStreamSlot(this.opts.redis, this.opts.prefix, slot).catch((err) =>
      this.opts.log.warn({ err }, 'releasing a Reactor stream’s slot failed; its lease lapses instead'),
    );
  }

  /** No stream open: nothing to tail, nobody to keep alive. */
  private idle(): void {
    this.tail?.stop();
    this.tail = undefined;
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  /** Ends every open stream (the clients see their response end and reconnect elsewhere) and stops. */
  async close(): Promise<void> {
    this.closed = true;
    const open = [...this.slots.keys()];
    await Promise.all(open.map((sink) => sink.end()));
    for (const sink of open) this.remove(sink);
    this.idle();
  }
}

function tooManyStreams(max: number, leaseMs: number): AppError {
  const seconds = Math.ceil(leaseMs / 1000);
  return new AppError(
    429,
    'too_many_streams',
    `This agent key already holds ${max} open Reactor event streams (REACTOR_STREAM_MAX_PER_KEY)`,
    `Close one of them before opening another; a stream dropped without closing frees its slot within ${seconds} s.`,
    { retryable: true, headers: { 'Retry-After': String(seconds) } },
  );
}

export const shuttingDown = () =>
  outage(
    'shutting_down',
    'This API process is shutting down',
    'Reconnect in a moment: another API process, or this one once restarted, serves the stream.',
  );

/** The hub of one API process, configured from its environment (REACTOR_HEARTBEAT_SECONDS, REACTOR_STREAM_MAX_PER_KEY). */
export const reactorStreamHubFor = (deps: Pick<InfraDeps, 'redis' | 'infra' | 'env' | 'log'>) =>
  new ReactorStreamHub({
    redis: deps.redis,
    target: deps.infra,
    prefix: deps.env.QUEUE_PREFIX,
    log: deps.log,
    heartbeatMs: deps.env.REACTOR_HEARTBEAT_SECONDS * 1000,
    maxPerKey: deps.env.REACTOR_STREAM_MAX_PER_KEY,
  });
