import { z } from 'zod';
import { STREAM_ID } from '../../shared/domains/reactor/stream-ids.js';
import { endpoint } from './endpoint.js';
import { CAPS } from './reactor.endpoints.js';

export const lastEventIdSchema = z
  .string()
  .regex(STREAM_ID, 'last_event_id must be a stream id as the stream sent it (`<ms>-<seq>`)')
  .meta({ example: '1764988800000-0' });

export const reactorStreamEndpoints = {
  reactorStream: endpoint({
    method: 'get',
    path: '/api/sdk/reactor/stream',
    auth: 'agent',
    rateLimit: 'reactor-stream',
    tag: 'Reactor',
    summary: 'The agent’s Reactor events, live, as Server-Sent Events',
    description:
      'A `text/event-stream` that stays open: `event: reactor_event` with `data` = `{whale_wallet, side, size, price, market_title, market_slug, whale_label, …}` for each signal made for this agent (a maker leg’s only with `caps=maker`, as in `pending`), `event: reactor_withdrawn` when a fill it came from was dropped by a reorg, `event: shock_ladder` with the shock signal of `pending` when the agent’s shock-ladder config is enabled; each event’s `id:` is its stream id. ' +
      'A comment line every REACTOR_HEARTBEAT_SECONDS keeps it open; `retry:` says how long to wait before reconnecting. ' +
      'Reconnecting with `Last-Event-ID` (or `?last_event_id=`; the header wins) replays the agent’s events after that id first, then continues live, with no gap and no duplicate (at most the newest 500 missed events). ' +
      'At most REACTOR_STREAM_MAX_PER_KEY streams per key at once: one more answers 429. The stream ends when the process shuts down: reconnect.',
    query: z.object({ last_event_id: lastEventIdSchema.optional(), caps: CAPS }),
    response: z.string().meta({ description: 'Server-Sent Events (`id:`, `event:`, `data:` lines).' }),
    produces: 'text/event-stream',
    refuses422: 'error-body',
    errors: [429, 503],
  }),
};
