import mongoose from 'mongoose';
import { OUTAGE_RETRY_AFTER_SECONDS, outage } from './errors.js';

const {
  MongoNetworkError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoNotConnectedError,
  MongoClientClosedError,
} = mongoose.mongo;

/**
 * Server answers that mean "no writable primary right now" (a replica-set election or step-down, a
 * server shutting down): the command was not run, and it will be once a primary is back.
 */
const NO_PRIMARY_CODE_NAMES = new Set([
  'NotWritablePrimary',
  'NotPrimaryNoSecondaryOk',
  'NotPrimaryOrSecondary',
  'PrimarySteppedDown',
  'InterruptedDueToReplStateChange',
  'ShutdownInProgress',
  'InterruptedAtShutdown',
]);

/**
 * A database call that neither answered nor failed within its deadline. Seen after the database was
 * SIGKILLed and restarted during a chaos run: one read never settled, and every later request
 * sharing it (a cache load) or queued behind it (a worker's group commit) waited with it. Treated as
 * the database being unavailable: a request answers 503, a job waits without spending an attempt.
 */
export class DatabaseStalledError extends Error {
  override readonly name = 'DatabaseStalledError';
  constructor(what: string, ms: number) {
    super(`${what} neither answered nor failed within ${ms} ms`);
  }
}

/** `work`, or a DatabaseStalledError once `ms` pass first (the work itself carries on, unobserved). */
export function withinDatabaseDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DatabaseStalledError(what, ms)), ms);
    timer.unref();
  });
  return Promise.race([work, stalled]).finally(() => clearTimeout(timer));
}

/**
 * What an error wraps: its `cause`, or for a server error made from a driver error (a bulk write
 * cut off by a lost connection: MongoBulkWriteError), the driver error it was made from.
 */
const wrapped = (e: Error): unknown =>
  e.cause ??
  (e instanceof MongoServerError && e.errorResponse instanceof Error ? e.errorResponse : undefined);

/**
 * The driver's ways of saying "no database to talk to" (as opposed to a query it refused): the
 * server went away mid-command (network), none answered within the server-selection timeout, no
 * primary is writable for the moment, or the client is closed (shutting down). Wrapped errors are
 * followed, for errors made from one of these.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = wrapped(e), depth++) {
    if (
      e instanceof MongoNetworkError ||
      e instanceof MongoServerSelectionError ||
      e instanceof MongoTopologyClosedError ||
      e instanceof MongoNotConnectedError ||
      // An operation cut off because its client was closed under it: the watchdog replacing a client
      // that no longer reaches the database (mongo.ts), or a shutdown. Seen in a chaos run as 500s.
      e instanceof MongoClientClosedError ||
      e instanceof DatabaseStalledError ||
      (e instanceof MongoServerError && NO_PRIMARY_CODE_NAMES.has(e.codeName ?? '')) ||
      // Mongoose's own error for a connection that has not been made yet.
      e.name === 'MongooseServerSelectionError'
    )
      return true;
  }
  return false;
}

/** The driver's message, which names hosts, stays in the log. */
export const databaseUnavailable = (cause: unknown) =>
  outage(
    'database_unavailable',
    'The database is unavailable right now',
    `Retry in ${OUTAGE_RETRY_AFTER_SECONDS} seconds (see Retry-After); a trade sent with an idempotency_key is safe to send again.`,
    cause,
  );
