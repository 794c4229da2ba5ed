import mongoose, { type Connection } from 'mongoose';
import { isDatabaseUnavailable } from './database-unavailable.js';
import type { Logger } from './logger.js';

/** The database name in the URI path, if any (mongodb://host/name?opts). */
function databaseInUri(uri: string): string | undefined {
  const path = uri
    .replace(/^mongodb(\+srv)?:\/\/[^/]*/, '')
    .replace(/^\//, '')
    .split('?')[0];
  return path ? decodeURIComponent(path) : undefined;
}

/**
 * How long a connection attempt at startup without a logger (tools, benches) keeps trying a database
 * that is still coming up before it gives up.
 */
const STARTUP_PATIENCE_MS = 30_000;

/** Waits between connection attempts at startup: 250 ms doubling to 10 s (as connectRedisWhenUp). */
const FIRST_WAIT_MS = 250;
const MAX_WAIT_MS = 10_000;

/**
 * `serverSelectionTimeoutMS` is how long a command waits for a reachable server: short, so that
 * during an outage a request answers 503 at once instead of hanging (MONGODB_SERVER_SELECTION_TIMEOUT_MS).
 */
/** The write concern of every connection: see connectMongo. */
export const DURABLE_WRITES = { w: 'majority', journal: true } as const;

export async function connectMongo(
  uri: string,
  defaultDb: string,
  serverSelectionTimeoutMS = 1000,
  /**
   * With a logger (every service process), a database that does not answer is waited for without
   * end, with backoff, each wait logged, as Redis is (connectRedisWhenUp): a process started before
   * its database, or while it is down, comes up once it answers instead of exiting after 30 s.
   * Without one, it gives up after STARTUP_PATIENCE_MS.
   */
  log?: Pick<Logger, 'info' | 'warn'>,
  /** Commands that take at least this long are logged (MONGODB_SLOW_COMMAND_MS; 0: none). */
  slowCommandMs = 0,
): Promise<Connection> {
  const deadline = Date.now() + STARTUP_PATIENCE_MS;
  for (let attempt = 1; ; attempt++) {
    const conn = mongoose.createConnection(uri, {
      // Only ever turned on here: `false` would override a `monitorCommands=true` in the URI, which
      // the bench's command count (bench/command-count.ts) opens its connections with.
      ...(slowCommandMs > 0 && log ? { monitorCommands: true } : {}),
      dbName: databaseInUri(uri) ?? defaultDb,
      serverSelectionTimeoutMS,
      // Indexes are created explicitly at start (ensureIndexes), not lazily on first use.
      autoIndex: false,
      // Every write is money or what a client was told: acknowledged only once journaled (a mongod
      // journals every 100 ms by itself, so a kill -9 could lose what it had just acknowledged) and
      // held by a majority of a replica set (on a standalone server: by it).
      writeConcern: DURABLE_WRITES,
    });
    if (slowCommandMs > 0 && log) logSlowCommands(conn, slowCommandMs, log);
    try {
      const connected = await conn.asPromise();
      if (attempt > 1) log?.info({ attempts: attempt }, 'the database answers now');
      return connected;
    } catch (err) {
      await conn.close().catch(() => undefined);
      if (!isDatabaseUnavailable(err)) throw err;
      if (!log) {
        if (Date.now() >= deadline) throw err;
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      const delayMs = Math.min(FIRST_WAIT_MS * 2 ** (attempt - 1), MAX_WAIT_MS);
      log.warn(
        { attempt, delayMs, err: err instanceof Error ? err.message : String(err) },
        'the database is not reachable; waiting before trying again',
      );
      await new Promise((r) => setTimeout(r, delayMs));
    }
  }
}

/** The field names a command selects by (never their values: filters hold keys and ids). */
function selectorShape(command: Record<string, unknown>): string[] {
  const first = (v: unknown) =>
    Array.isArray(v) ? (v[0] as Record<string, unknown> | undefined) : undefined;
  const selector =
    command.filter ??
    command.query ??
    first(command.updates)?.q ??
    first(command.deletes)?.q ??
    first(command.pipeline)?.$match;
  return selector && typeof selector === 'object' ? Object.keys(selector) : [];
}

/**
 * Logs every command that took at least `thresholdMs` (name, collection, the fields it selects by,
 * and its time including any wait on the server). The way to find the query that holds a collection
 * when reads stall: on the development database a collection answers one command at a time, so one
 * scan delays everything queued behind it. The driver times commands in whole milliseconds, so a
 * threshold of 1 leaves out those under a millisecond. The connection must monitor commands.
 */
export function logSlowCommands(conn: Connection, thresholdMs: number, log: Pick<Logger, 'warn'>): void {
  const started = new Map<number, { command: string; collection: unknown; selects: string[] }>();
  const client = conn.getClient();
  client.on('commandStarted', (e) => {
    const collection = (e.command as Record<string, unknown>)[e.commandName];
    started.set(e.requestId, {
      command: e.commandName,
      collection: typeof collection === 'string' ? collection : undefined,
      selects: selectorShape(e.command as Record<string, unknown>),
    });
  });
  const finished = (e: { requestId: number; duration: number }, failed: boolean) => {
    const what = started.get(e.requestId);
    started.delete(e.requestId);
    if (what && e.duration >= thresholdMs)
      log.warn({ ...what, durationMs: Math.round(e.duration), failed }, 'slow database command');
  };
  client.on('commandSucceeded', (e) => finished(e, false));
  client.on('commandFailed', (e) => finished(e, true));
}

export async function pingMongo(conn: Connection): Promise<void> {
  const db = conn.db;
  if (!db) throw new Error('MongoDB connection is not open');
  await db.command({ ping: 1 });
}

/** How often the database watchdog looks, and after how many failed looks in a row it probes. */
const WATCH_INTERVAL_MS = 5_000;
const WEDGED_AFTER_FAILURES = 3;
const PROBE_TIMEOUT_MS = 2_000;

/** Whether a fresh client (its own connection and monitor) reaches the database at `uri` now. */
async function freshClientReaches(uri: string): Promise<boolean> {
  const client = new mongoose.mongo.MongoClient(uri, {
    serverSelectionTimeoutMS: PROBE_TIMEOUT_MS,
    connectTimeoutMS: PROBE_TIMEOUT_MS,
  });
  try {
    await client.connect();
    await client.db('admin').command({ ping: 1 });
    return true;
  } catch {
    return false;
  } finally {
    await client.close(true).catch(() => undefined);
  }
}

/**
 * Rebuilds the driver's client when it keeps failing to reach a database that a fresh client
 * reaches. Seen after the embedded database was SIGKILLed and restarted: the driver's server
 * monitor was left waiting on a heartbeat that never settled, so its server stayed Unknown and
 * every command failed server selection for as long as the process lived (a chaos run's API, 11
 * minutes). A database that is really down fails the fresh client too and is left alone. Models
 * keep working across the rebuild (the same client object connects again); commands in flight
 * then fail as an outage. Returns the function that stops watching (also on the connection's close).
 */
export function watchMongo(
  conn: Connection,
  uri: string,
  log: { warn: (o: object, m: string) => void; error: (o: object, m: string) => void },
  opts: {
    intervalMs?: number;
    ping?: (conn: Connection) => Promise<void>;
    probe?: (uri: string) => Promise<boolean>;
  } = {},
): () => void {
  const { intervalMs = WATCH_INTERVAL_MS, ping = pingMongo, probe = freshClientReaches } = opts;
  let failures = 0;
  let looking = false;
  let stopped = false;
  let reconnecting = false;
  const look = async () => {
    if (looking || stopped) return;
    looking = true;
    try {
      await ping(conn);
      failures = 0;
    } catch (err) {
      failures++;
      if (failures >= WEDGED_AFTER_FAILURES && (await probe(uri)) && !stopped) {
        log.error(
          { err, failures },
          'the database answers a fresh client but not this one: reconnecting the database client',
        );
        const client = conn.getClient();
        reconnecting = true;
        await client.close(true).catch(() => undefined);
        await client
          .connect()
          .catch((e: unknown) => log.warn({ err: e }, 'database client not reconnected yet'))
          .finally(() => (reconnecting = false));
        failures = 0;
      }
    } finally {
      looking = false;
    }
  };
  const timer = setInterval(() => void look(), intervalMs);
  timer.unref();
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  // The service closing the connection ends the watch; this watch's own reconnect does not.
  conn.on('close', () => {
    if (!reconnecting) stop();
  });
  return stop;
}
