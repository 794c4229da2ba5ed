import type { Model } from 'mongoose';
import { afterWrite } from '../../infra/faults.js';
import { isDuplicateKey, type Refusal } from '../refusal.js';

/**
 * A sequenced log with a projection: the pattern behind every money write of the service (the
 * agent ledger, the market event log). Each stream (an agent, a market) is a head document carrying
 * the sequence number of the last event applied to it, and a log collection with a unique
 * `(stream, seq)` index. Appending decides the event from the head exactly as of the previous event,
 * inserts it with the next sequence number (the unique index makes this the one writer of the
 * stream), then applies it to the head, guarded by the head's sequence. Any worker can roll a head
 * forward after a crash between the insert and the apply; an event id logged before is found, not
 * logged twice. No multi-document transaction is needed, on mongo-java-server or MongoDB 7.
 */
export interface SequencedEvent {
  _id: string;
  seq: number;
}

export interface SequencedLog<Head, Event extends SequencedEvent> {
  /** For error messages, e.g. `agent`, `market`. */
  name: string;
  log: Model<Event>;
  /** The log's field naming the stream (e.g. `agentId`). */
  streamField: string;
  readHead(streamId: string): Promise<Head | null>;
  /** The sequence number of the last event applied to the head. */
  seqOf(head: Head): number;
  /** Applies one event to the head; a no-op when it is already applied (guarded by sequence). */
  apply(event: Event): Promise<void>;
}

/**
 * Reads the head and, in one more round trip, the events it has not applied yet (and event
 * `eventId`, if given). Applies the unapplied ones in order; returns the head as read, whether it
 * was behind (then read again before deciding anything), and event `eventId` if it is logged.
 */
export async function readStream<Head, Event extends SequencedEvent>(
  spec: SequencedLog<Head, Event>,
  streamId: string,
  eventId?: string,
): Promise<{ head: Head; behind: boolean; mine: Event | undefined }> {
  const head = await spec.readHead(streamId);
  if (!head) throw new Error(`${spec.name} ${streamId} not found`);
  const seq = spec.seqOf(head);
  const conditions: Record<string, unknown>[] = [{ [spec.streamField]: streamId, seq: { $gt: seq } }];
  if (eventId) conditions.push({ _id: eventId });
  const events = (await spec.log
    .find({ $or: conditions } as never)
    .sort({ seq: 1 })
    .lean()) as unknown as Event[];
  const isOwn = (e: Event) => (e as unknown as Record<string, unknown>)[spec.streamField] === streamId;
  const unapplied = events.filter((e) => isOwn(e) && e.seq > seq);
  for (const e of unapplied) await spec.apply(e);
  return {
    head,
    behind: unapplied.length > 0,
    mine: eventId ? events.find((e) => e._id === eventId) : undefined,
  };
}

/** Brings a head up to date with its log (after a crash between an append and its apply). */
export async function rollForwardStream<Head, Event extends SequencedEvent>(
  spec: SequencedLog<Head, Event>,
  streamId: string,
): Promise<void> {
  while ((await readStream(spec, streamId)).behind);
}

/** What `build` makes of the head: the event to log, a refusal, or "read the head again". */
export type BuildResult<Event, Extra> =
  | { ok: true; event: Omit<Event, '_id' | 'seq'>; extra: Extra }
  | { ok: false; refusal: Refusal }
  | { retry: true };

export type AppendResult<Event, Extra> =
  | { event: Event; refusal?: undefined; extra?: Extra }
  | { event?: undefined; refusal: Refusal; extra?: undefined };

/**
 * Appends event `eventId` to stream `streamId`: `build` decides it from the head as of the previous
 * event (it may read more, e.g. a position, and ask for a fresh read). Returns the logged event (an
 * existing one if this id was logged before: a retry never logs twice, and then `extra` is absent),
 * or the refusal. `apply` runs after the insert; pass `applied` to use an apply that knows more.
 */
export async function appendToStream<Head, Event extends SequencedEvent, Extra = undefined>(
  spec: SequencedLog<Head, Event>,
  streamId: string,
  eventId: string,
  build: (head: Head, seq: number) => Promise<BuildResult<Event, Extra>> | BuildResult<Event, Extra>,
  applied: (event: Event) => Promise<void> = (e) => spec.apply(e),
): Promise<AppendResult<Event, Extra>> {
  for (let attempt = 0; attempt < 1000; attempt++) {
    // Fast path, on the first attempt: the head alone. Whatever it cannot see (an event a crashed
    // writer logged but did not apply, or this very event logged by an earlier run) makes the insert
    // below fail on a unique index, and every later attempt reads the log too.
    let head: Head;
    if (attempt === 0) {
      const found = await spec.readHead(streamId);
      if (!found) throw new Error(`${spec.name} ${streamId} not found`);
      head = found;
    } else {
      const read = await readStream(spec, streamId, eventId);
      if (read.mine && !read.behind) return { event: read.mine };
      if (read.behind || read.mine) continue;
      head = read.head;
    }
    const seq = spec.seqOf(head) + 1;
    let built: BuildResult<Event, Extra>;
    try {
      built = await build(head, seq);
    } catch (err) {
      // The builder's own checks (e.g. "would make the agent negative") hold only on a full read:
      // on the fast path the head may already include this very event, logged by an earlier run.
      if (attempt === 0) continue;
      throw err;
    }
    // The builder saw an inconsistent state (e.g. a position ahead of its agent): read everything again.
    if ('retry' in built) continue;
    // A refusal is final only on a full read: on the fast path the refused event may be this one,
    // logged by an earlier run (e.g. a reservation the head already shows, so cash looks short).
    if (!built.ok) {
      if (attempt === 0) continue;
      return { refusal: built.refusal };
    }
    const event = { ...built.event, _id: eventId, seq } as Event;
    try {
      // The native insert: the event is fully built and typed, so mongoose's document machinery only costs CPU.
      await spec.log.collection.insertOne(event as never);
      afterWrite();
    } catch (err) {
      // Another writer took this sequence number (or logged this very event): start over from the
      // newer state. Jitter spreads contending writers apart.
      if (!isDuplicateKey(err)) throw err;
      // Straight to the full read after the fast path; jitter spreads contending writers apart.
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.random() * Math.min(20, 1 + attempt)));
      continue;
    }
    await applied(event);
    return { event, extra: built.extra };
  }
  throw new Error(`could not append to the log of ${spec.name} ${streamId}: too much contention`);
}
