import type { Response } from 'express';
import type { RedisClient } from '../../shared/infra/redis.js';
import {
  readReactorEventsAfter,
  type ReactorStreamEntry,
} from '../../shared/domains/reactor/reactor-event-stream.js';
import {
  shuttingDown,
  type ReactorStreamHub,
  type ReactorStreamSink,
} from '../../shared/domains/reactor/reactor-stream-hub.js';
import { compareStreamIds } from '../../shared/domains/reactor/stream-ids.js';

/** The SSE `retry:` field: how long a client that lost the stream waits before reconnecting. */
export const SSE_RETRY_MS = 3000;
/** A resume replays at most this many of the agent's missed entries, the newest. */
const REPLAY_MAX_EVENTS = 500;
const REPLAY_PAGE = 500;
/** …found among at most this many entries of the stream (every agent's) after its Last-Event-ID. */
const REPLAY_SCAN_MAX = 20_000;
/**
 * A client reading slower than its events come is cut off past this much unsent text (bounded
 * memory); it reconnects with Last-Event-ID and is replayed what it missed.
 */
const MAX_UNSENT_BYTES = 1 << 20;
/** Entries held while a resume's replay is read; past this many the connection is cut off likewise. */
const MAX_HELD = 10_000;
/** How long a shutdown waits for a stream's last bytes to leave before dropping the connection. */
const END_GRACE_MS = 1000;

/**
 * One open `text/event-stream` response. Entries the hub hands over are held until the replay (if
 * any) is written, then written in stream order; an entry at or before the last id written is
 * skipped, so that replay and live delivery meet with no gap and no duplicate.
 */
export class SseResponse implements ReactorStreamSink {
  private held: ReactorStreamEntry[] | undefined = [];
  private started = false;
  private ended = false;

  constructor(
    private readonly res: Response,
    private lastId: string | undefined,
    /** The client announced `caps=maker`: events of fills where the whale was the maker reach it too. */
    private readonly makerLegs: boolean,
  ) {}

  get isEnded(): boolean {
    return this.ended;
  }

  start(): void {
    if (this.ended) return;
    this.started = true;
    this.res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache',
      // nginx (and proxies that honour it) pass each event on at once instead of buffering the body.
      'X-Accel-Buffering': 'no',
      Connection: 'keep-alive',
    });
    this.res.flushHeaders();
    // Each event is a small write the client waits for: no Nagle delay.
    this.res.socket?.setNoDelay(true);
    this.write(`retry: ${SSE_RETRY_MS}\n: connected\n\n`);
  }

  deliver(entry: ReactorStreamEntry): void {
    if (!this.held) return this.send(entry);
    if (this.held.length >= MAX_HELD) return this.cut();
    this.held.push(entry);
  }

  /** The first entry held back by the replay: the replay needs to read no further than it. */
  get firstHeldId(): string | undefined {
    return this.held?.[0]?.id;
  }

  /** Writes the replay, then what arrived meanwhile, and from then on each entry as it comes. */
  goLive(replay: ReactorStreamEntry[]): void {
    for (const entry of replay) this.send(entry);
    const held = this.held ?? [];
    this.held = undefined;
    for (const entry of held) this.send(entry);
  }

  heartbeat(): void {
    this.write(': heartbeat\n\n');
  }

  private send(entry: ReactorStreamEntry): void {
    if (this.lastId && compareStreamIds(entry.id, this.lastId) <= 0) return;
    if (!this.makerLegs && entry.data.leg === 'maker') return;
    this.lastId = entry.id;
    this.write(`id: ${entry.id}\nevent: ${entry.event}\ndata: ${JSON.stringify(entry.data)}\n\n`);
  }

  private write(text: string): void {
    if (!this.started || this.ended) return;
    if (this.res.writableLength > MAX_UNSENT_BYTES) return this.cut();
    this.res.write(text);
  }

  /** Drops the connection: the client sees an error and resumes from its Last-Event-ID. */
  cut(): void {
    this.ended = true;
    this.res.destroy();
  }

  end(): Promise<void> {
    const wasOpen = this.started && !this.ended;
    this.ended = true;
    if (!wasOpen || this.res.writableEnded) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.res.destroy(), END_GRACE_MS);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      this.res.once('close', done);
      this.res.once('finish', done);
      this.res.end();
    });
  }
}

/** The agent's entries after `after`, oldest first: the newest REPLAY_MAX_EVENTS of them. */
async function entriesToReplay(
  redis: RedisClient,
  prefix: string,
  agentId: string,
  after: string,
  liveFrom: () => string | undefined,
): Promise<ReactorStreamEntry[]> {
  const mine: ReactorStreamEntry[] = [];
  let cursor = after;
  for (let scanned = 0; scanned < REPLAY_SCAN_MAX;) {
    const page = await readReactorEventsAfter(redis, prefix, cursor, REPLAY_PAGE);
    for (const entry of page) if (entry.agentId === agentId) mine.push(entry);
    if (mine.length > REPLAY_MAX_EVENTS) mine.splice(0, mine.length - REPLAY_MAX_EVENTS);
    if (page.length < REPLAY_PAGE) break;
    scanned += page.length;
    cursor = page.at(-1)!.id;
    // Every entry of the agent from the first one held on is held too (the hub hands them over in order).
    const live = liveFrom();
    if (live && compareStreamIds(cursor, live) >= 0) break;
  }
  return mine;
}

export interface ReactorStreamRequest {
  res: Response;
  hub: ReactorStreamHub;
  redis: RedisClient;
  prefix: string;
  agentId: string;
  /** Where the client's last stream ended (Last-Event-ID): what it missed since is replayed first. */
  lastEventId?: string;
  /** Send the events of maker legs too (`caps=maker`), as `pending` does. */
  makerLegs: boolean;
}

/**
 * Answers with the agent's Reactor events as Server-Sent Events until the client leaves or the
 * process stops. A refusal (429 past the key's bound, 503 while shutting down or Redis is down)
 * is thrown before anything is sent, so that it is answered as the contract's JSON error.
 */
export async function serveReactorStream(r: ReactorStreamRequest): Promise<void> {
  const stream = new SseResponse(r.res, r.lastEventId, r.makerLegs);
  // The client may leave while the stream is being opened: its slot is given back at once then.
  let gone = false;
  r.res.once('close', () => (gone = true));
  const release = await r.hub.open(r.agentId, stream);
  if (gone) return release();
  r.res.once('close', release);
  // The process began to shut down while the stream was being opened.
  if (stream.isEnded) {
    release();
    throw shuttingDown();
  }
  stream.start();
  let replay: ReactorStreamEntry[] = [];
  if (r.lastEventId) {
    try {
      replay = await entriesToReplay(r.redis, r.prefix, r.agentId, r.lastEventId, () => stream.firstHeldId);
    } catch {
      // Redis failed mid-replay: the client reconnects with the same Last-Event-ID and is replayed then.
      return stream.cut();
    }
  }
  stream.goLive(replay);
}
