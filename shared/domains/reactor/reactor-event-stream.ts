import type { RedisClient } from '../../infra/redis.js';

/**
 * The Reactor event stream: what the reactor workers produce, read by every API process for its
 * Server-Sent Events connections. One Redis stream, trimmed to about `maxLen` entries (bounded
 * memory whatever the load); an entry id is the SSE `id:` a reconnecting client sends back as
 * `Last-Event-ID`, so that every API process resumes it at the same place.
 */
/** `shock_ladder`: a shock queued for the agent (shared/domains/shock-ladder), beside the whale events. */
export type ReactorStreamEvent = 'reactor_event' | 'reactor_withdrawn' | 'shock_ladder';

export interface ReactorStreamEntry {
  /** The Redis stream id (`<ms>-<seq>`). */
  id: string;
  agentId: string;
  event: ReactorStreamEvent;
  /** The SSE `data:` object (reactor_event: the shape the reactor MCP client reads). */
  data: Record<string, unknown>;
}

export const reactorStreamKey = (prefix: string) => `${prefix}:reactor:events`;

/** Appends entries in one round trip; answers their stream ids, in order. */
export async function publishReactorEvents(
  redis: RedisClient,
  prefix: string,
  maxLen: number,
  entries: Omit<ReactorStreamEntry, 'id'>[],
): Promise<string[]> {
  if (!entries.length) return [];
  const key = reactorStreamKey(prefix);
  const pipeline = redis.pipeline();
  for (const e of entries) {
    pipeline.xadd(
      key,
      'MAXLEN',
      '~',
      String(maxLen),
      '*',
      'a',
      e.agentId,
      'e',
      e.event,
      'd',
      JSON.stringify(e.data),
    );
  }
  const results = (await pipeline.exec()) ?? [];
  return results.map(([err, id]) => {
    if (err) throw err;
    return String(id);
  });
}

type RawEntry = [string, string[]];

function parseEntry([id, fields]: RawEntry): ReactorStreamEntry | null {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
  if (!f.a || !f.e || !f.d) return null;
  try {
    return {
      id,
      agentId: f.a,
      event: f.e as ReactorStreamEvent,
      data: JSON.parse(f.d) as Record<string, unknown>,
    };
  } catch {
    return null;
  }
}

/** Entries strictly after `afterId`, oldest first, at most `count` (a resume's replay). */
export async function readReactorEventsAfter(
  redis: RedisClient,
  prefix: string,
  afterId: string,
  count: number,
): Promise<ReactorStreamEntry[]> {
  const raw = (await redis.xrange(
    reactorStreamKey(prefix),
    `(${afterId}`,
    '+',
    'COUNT',
    count,
  )) as RawEntry[];
  return raw.map(parseEntry).filter((e): e is ReactorStreamEntry => e !== null);
}

/** The id of the newest entry, or `0-0` when the stream is empty: where a new tail starts. */
export async function lastReactorEventId(redis: RedisClient, prefix: string): Promise<string> {
  const raw = (await redis.xrevrange(reactorStreamKey(prefix), '+', '-', 'COUNT', 1)) as RawEntry[];
  return raw[0]?.[0] ?? '0-0';
}

/**
 * Waits up to `blockMs` for entries after `afterId` (XREAD BLOCK): needs a connection of its own,
 * which the blocking read holds for that long. `lastId` is the last id read, an entry that does not
 * parse included, so that the next read starts past it instead of reading it again forever.
 */
export async function tailReactorEvents(
  blocking: RedisClient,
  prefix: string,
  afterId: string,
  blockMs: number,
  count: number,
): Promise<{ entries: ReactorStreamEntry[]; lastId: string }> {
  const res = (await blocking.xread(
    'COUNT',
    count,
    'BLOCK',
    blockMs,
    'STREAMS',
    reactorStreamKey(prefix),
    afterId,
  )) as [string, RawEntry[]][] | null;
  const raw = res?.[0]?.[1] ?? [];
  return {
    entries: raw.map(parseEntry).filter((e): e is ReactorStreamEntry => e !== null),
    lastId: raw.at(-1)?.[0] ?? afterId,
  };
}
