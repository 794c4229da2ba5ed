import mongoose, { type Connection } from 'mongoose';
import { isDatabaseUnavailable } from './database-unavailable.js';

/** The database name in the URI path, if any (mongodb://host/name?opts). */
function databaseInUri(uri: string): string | undefined {
  const path = uri
    .replace(/^mongodb(\+srv)?:\/\/[^/]*/, '')
    .replace(/^\//, '')
    .split('?')[0];
  return path ? decodeURIComponent(path) : undefined;
}

/**
 * How long startup waits for a database that is still coming up (a container started beside
 * ours); the short server-selection timeout only governs requests once the service runs.
 */
const STARTUP_PATIENCE_MS = 30_000;

/**
 * `serverSelectionTimeoutMS` is how long a command waits for a reachable server: short, so that
 * during an outage a request answers 503 at once instead of hanging (MONGODB_SERVER_SELECTION_TIMEOUT_MS).
 */
export async function connectMongo(
  uri: string,
  defaultDb: string,
  serverSelectionTimeoutMS = 1000,
): Promise<Connection> {
  const deadline = Date.now() + STARTUP_PATIENCE_MS;
  for (;;) {
    const conn = mongoose.createConnection(uri, {
      dbName: databaseInUri(uri) ?? defaultDb,
      serverSelectionTimeoutMS,
      // Indexes are created explicitly at start (ensureIndexes), not lazily on first use.
      autoIndex: false,
    });
    try {
      return await conn.asPromise();
    } catch (err) {
      await conn.close().catch(() => undefined);
      if (!isDatabaseUnavailable(err) || Date.now() >= deadline) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

export async function pingMongo(conn: Connection): Promise<void> {
  const db = conn.db;
  if (!db) throw new Error('MongoDB connection is not open');
  await db.command({ ping: 1 });
}
