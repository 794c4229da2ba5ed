import { AppError } from '../../shared/infra/errors.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import { lastEventIdSchema, type reactorStreamEndpoints } from '../endpoints/reactor-stream.endpoints.js';
import { serveReactorStream } from '../http/reactor-sse.js';
import { handlesMakerLegs } from '../../shared/domains/reactor/pending-signals.js';

/** The header a reconnecting EventSource sends; it wins over the query, which stays the same URL after URL. */
function lastEventIdOf(header: string | string[] | undefined, query: string | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value === '') return query;
  if (lastEventIdSchema.safeParse(value).success) return value;
  throw new AppError(
    422,
    'invalid_last_event_id',
    'Last-Event-ID is not an id this stream sent (`<ms>-<seq>`)',
    'Send back the `id:` of the last event received, or no Last-Event-ID to start from now.',
  );
}

export const reactorStreamHandlers: HandlersFor<typeof reactorStreamEndpoints> = {
  reactorStream: async ({ deps, agent, query, req, res }) => {
    await serveReactorStream({
      res,
      hub: req.app.locals.reactorStreams,
      redis: deps.redis,
      prefix: deps.env.QUEUE_PREFIX,
      agentId: agent._id,
      lastEventId: lastEventIdOf(req.headers['last-event-id'], query.last_event_id),
      makerLegs: handlesMakerLegs(query.caps),
    });
    // Answered already (the stream), or refused by a throw before anything was sent.
    return '';
  },
};
