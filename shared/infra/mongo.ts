import mongoose, { type Connection } from 'mongoose';

/** The database name in the URI path, if any (mongodb://host/name?opts). */
function databaseInUri(uri: string): string | undefined {
  const path = uri
    .replace(/^mongodb(\+srv)?:\/\/[^/]*/, '')
    .replace(/^\//, '')
    .split('?')[0];
  return path ? decodeURIComponent(path) : undefined;
}

export async function connectMongo(uri: string, defaultDb: string): Promise<Connection> {
  const conn = mongoose.createConnection(uri, {
    dbName: databaseInUri(uri) ?? defaultDb,
    serverSelectionTimeoutMS: 5000,
    // Indexes are created explicitly at start (ensureIndexes), not lazily on first use.
    autoIndex: false,
  });
  return conn.asPromise();
}

export async function pingMongo(conn: Connection): Promise<void> {
  const db = conn.db;
  if (!db) throw new Error('MongoDB connection is not open');
  await db.command({ ping: 1 });
}
