import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import {
  publishReactorEvents,
  readReactorEventsAfter,
  type ReactorStreamEntry,
  type ReactorStreamEvent,
} from './reactor-event-stream.js';
import type { ReactorSignalRecord } from './reactor-signal.model.js';
import { eventView, withdrawalView } from './signal-view.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type PublishSignalsDeps = Pick<InfraDeps, 'env' | 'redis' | 'clock'> & { models: Models };

/** What is published of a signal: its event, or its withdrawal; each flagged on the signal once out. */
const KINDS = {
  signal: {
    event: 'reactor_event',
    flag: 'publishedAt',
    due: (s: ReactorSignalRecord) => s.publishedAt === null,
    since: (s: ReactorSignalRecord) => s.createdAt,
    data: eventView,
  },
  withdrawal: {
    event: 'reactor_withdrawn',
    flag: 'withdrawalPublishedAt',
    // Only a signal whose event went out is taken back on the stream.
    due: (s: ReactorSignalRecord) =>
      s.withdrawnAt !== null && s.publishedAt !== null && s.withdrawalPublishedAt === null,
    since: (s: ReactorSignalRecord) => s.withdrawnAt ?? s.createdAt,
    data: withdrawalView,
  },
} as const satisfies Record<
  string,
  {
    event: ReactorStreamEvent;
    flag: 'publishedAt' | 'withdrawalPublishedAt';
    due: (s: ReactorSignalRecord) => boolean;
    since: (s: ReactorSignalRecord) => Date;
    data: (s: ReactorSignalRecord) => Record<string, unknown>;
  }
>;
export type PublishKind = keyof typeof KINDS;

/** Entries read per page when looking for what an earlier attempt published. */
const SCAN_PAGE = 1000;
/** How far before a signal's own time its entry is looked for (clocks of two processes differ a little). */
const SCAN_MARGIN_MS = 5000;

const entryKey = (agentId: string, event: string, signalId: unknown) =>
  `${agentId}|${event}|${String(signalId)}`;

/**
 * Of `candidates` (signals an earlier attempt wrote and may have published before it died), those
 * whose entry is already on the stream: read from a little before the earliest of them (stream ids
 * are times), to the end. The stream is bounded (REACTOR_STREAM_MAXLEN), so is the read.
 */
async function alreadyOnStream(
  deps: PublishSignalsDeps,
  kind: PublishKind,
  candidates: ReactorSignalRecord[],
): Promise<Set<string>> {
  const k = KINDS[kind];
  const wanted = new Map(candidates.map((s) => [entryKey(s.agentId, k.event, s.signalId), s._id]));
  const found = new Set<string>();
  if (!wanted.size) return found;
  const from = Math.min(...candidates.map((s) => k.since(s).getTime())) - SCAN_MARGIN_MS;
  let after = `${Math.max(0, from)}-0`;
  for (;;) {
    const page: ReactorStreamEntry[] = await readReactorEventsAfter(
      deps.redis,
      deps.env.QUEUE_PREFIX,
      after,
      SCAN_PAGE,
    );
    for (const e of page) {
      const id = wanted.get(entryKey(e.agentId, e.event, e.data.signal_id));
      if (id) found.add(id);
    }
    if (page.length < SCAN_PAGE || found.size === wanted.size) return found;
    after = page.at(-1)!.id;
  }
}

/**
 * Publishes each signal's event (or withdrawal) on the Reactor event stream once. Signals written by
 * this run (`fresh`) cannot have been published yet; the others were left by an earlier attempt,
 * which may have died between publishing and flagging: the stream is read for them first, and only
 * those not on it go out. Then each is flagged. Answers how many went out.
 */
export async function publishOnce(
  deps: PublishSignalsDeps,
  kind: PublishKind,
  signals: ReactorSignalRecord[],
  fresh: ReadonlySet<string>,
): Promise<number> {
  const k = KINDS[kind];
  const due = signals.filter(k.due);
  if (!due.length) return 0;
  const onStream = await alreadyOnStream(
    deps,
    kind,
    due.filter((s) => !fresh.has(s._id)),
  );
  const out = due.filter((s) => !onStream.has(s._id));
  await publishReactorEvents(
    deps.redis,
    deps.env.QUEUE_PREFIX,
    deps.env.REACTOR_STREAM_MAXLEN,
    out.map((s) => ({ agentId: s.agentId, event: k.event, data: k.data(s) })),
  );
  await deps.models.ReactorSignal.updateMany(
    { _id: { $in: due.map((s) => s._id) } },
    { $set: { [k.flag]: deps.clock() } },
  );
  return out.length;
}
