import { z } from 'zod';
import {
  ReactorConfigSchema,
  ReactorConfigUpdateSchema,
} from '../../shared/domains/reactor/reactor-config.schemas.js';
import { ReactionInputSchema, ReactionSchema } from '../../shared/domains/reactor/reactions.schemas.js';
import { MAX_PENDING } from '../../shared/domains/reactor/pending-signals.js';
import { endpoint } from './endpoint.js';

export const CAPS = z.string().max(100).optional().meta({
  description:
    'What the client handles, a comma list: `maker` adds the signals of fills where the whale was the maker.',
});

const WhaleSchema = z.object({
  wallet: z.string(),
  label: z.string().nullable(),
  side: z.enum(['BUY', 'SELL']),
  token: z.string(),
  price: z.number(),
  size: z.number().meta({ description: 'The whale’s shares.' }),
  condition_id: z.string(),
  market_title: z.string().nullable(),
  market_slug: z.string().nullable(),
  outcome: z.string().nullable(),
});

const PendingSignalSchema = z
  .object({
    signal_id: z
      .string()
      .meta({ description: 'The tx hash for a taker leg; longer, with colons, for a maker leg.' }),
    type: z.literal('copytrade'),
    tx_hash: z.string(),
    market_id: z.string(),
    side: z.enum(['yes', 'no']),
    action: z.enum(['buy', 'sell']),
    amount: z.number().meta({ description: 'The mirror, in venue units (whole cents).' }),
    venue: z.string(),
    leg: z.enum(['taker', 'maker']),
    created_at: z.string(),
    expires_at: z.string(),
    whale: WhaleSchema,
  })
  .meta({ id: 'ReactorSignal' });

const ShockSignalSchema = z
  .object({
    type: z.literal('shock_ladder'),
    signal_id: z.string().meta({ description: 'The shock’s id: one signal per agent per shock.' }),
    shock_id: z
      .string()
      .meta({ description: '`<market_id>:<side>:<unix seconds>`; delete the signal by it.' }),
    market_id: z.string(),
    side: z.enum(['yes', 'no']).meta({ description: 'The outcome whose price fell.' }),
    pre_price: z
      .number()
      .meta({ description: 'That outcome’s highest price in the window before the drop.' }),
    shock_price: z.number().meta({ description: 'Its price when the drop was seen.' }),
    bucket_key: z.string().meta({
      description:
        '`league|favoritism|book|time|goal`: the market’s sports tag; heavy (≥ 0.85), moderate (0.75–0.85), slight (0.60–0.75), balanced (0.40–0.60) or underdog by pre_price; deep or thin book by the venue’s spread (≤ 0.02 deep); match minute and goal state `unknown` (no venue quote carries them).',
    }),
    percentile_depths: z
      .object({ p50: z.number(), p75: z.number(), p90: z.number(), p95: z.number() })
      .meta({ description: 'How far below pre_price comparable past drops went, in cents (percentiles).' }),
    depth_source: z.enum(['tapes', 'tapes_all_bands', 'default']).meta({
      description:
        '`tapes`: the past drops of the same favoritism band on our recorded tapes (the venue’s prints of its imported sports markets, SHOCK_LADDER_HISTORY_DAYS); `tapes_all_bands`: every band’s, when the band has fewer than SHOCK_LADDER_MIN_HISTORY; `default`: SHOCK_LADDER_DEFAULT_DEPTHS_CENTS, when the tapes hold fewer still.',
    }),
    observed_count: z
      .number()
      .int()
      .meta({ description: 'Past drops the depths come from (0 for default).' }),
    ts: z.number().meta({ description: 'Unix seconds the shock was seen.' }),
    created_at: z.string(),
    expires_at: z.string(),
  })
  .meta({ id: 'ShockLadderSignal' });

const ShockLadderConfigSchema = z.object({
  shock_ladder_enabled: z.boolean(),
  updated_at: z.string().nullable(),
  drop_cents: z.number().meta({ description: 'SHOCK_LADDER_DROP_CENTS: the fall that makes a shock.' }),
  window_seconds: z
    .number()
    .int()
    .meta({ description: 'SHOCK_LADDER_WINDOW_SECONDS: the window it is measured over.' }),
  signal_ttl_seconds: z
    .number()
    .int()
    .meta({ description: 'SHOCK_LADDER_SIGNAL_TTL_SECONDS: how long a shock stays pending.' }),
});

const WhaleEventSchema = z
  .object({
    whale_wallet: z.string(),
    side: z.enum(['BUY', 'SELL']),
    size: z.number(),
    price: z.number(),
    market_title: z.string().nullable(),
    market_slug: z.string().nullable(),
    whale_label: z.string().nullable(),
    signal_id: z.string(),
    market_id: z.string(),
    outcome: z.string().nullable(),
    tx_hash: z.string(),
    venue: z.string(),
    leg: z.enum(['taker', 'maker']),
    action: z.enum(['buy', 'sell']),
    amount: z.number(),
    created_at: z.string(),
  })
  .meta({ id: 'ReactorEvent' });

const CONFIG_NOTE =
  '`wallets` and `watchlist` are two views of one list (at most 100 wallets): `wallets` are the enabled entries of `watchlist`. Until its first change an agent has the defaults: nothing watched, min_size 0, max_size 100 shares, mirror_fraction 0.1, daily_cap 100, venue sim, enabled, price_buffer 0.02.';

export const reactorEndpoints = {
  getReactorConfig: endpoint({
    method: 'get',
    path: '/api/sdk/reactor/config',
    auth: 'agent',
    tag: 'Reactor',
    summary: 'The agent’s Reactor config: watched wallets, size filters, mirror size, daily cap',
    description: CONFIG_NOTE,
    response: ReactorConfigSchema,
  }),
  patchReactorConfig: endpoint({
    method: 'patch',
    path: '/api/sdk/reactor/config',
    auth: 'agent',
    tag: 'Reactor',
    summary: 'Change the agent’s Reactor config (any of its fields); answers the whole config',
    description: `${CONFIG_NOTE} \`watchlist\` replaces the list; \`wallets\` makes the watched wallets exactly these (entries already listed keep their label, auto_copy and min_size; the others are removed). Both at once only when \`wallets\` are the enabled wallets of \`watchlist\`. A change reaches the fill matching within milliseconds.`,
    body: ReactorConfigUpdateSchema,
    response: ReactorConfigSchema,
    errors: [409],
  }),
  reactorPending: endpoint({
    method: 'get',
    path: '/api/sdk/reactor/pending',
    auth: 'agent',
    tag: 'Reactor',
    summary: 'The agent’s trade-ready Reactor signals, oldest first',
    description: `Signals of the watched wallets’ fills not yet deleted, expired (REACTOR_SIGNAL_TTL_SECONDS) nor withdrawn by a reorg; at most ${MAX_PENDING}. Mirror each at \`whale.price × (1 ± price_buffer)\`, then delete it by \`signal_id\`. Shock signals (\`type: shock_ladder\`, for agents whose shock-ladder config is enabled, SHOCK_LADDER_SIGNAL_TTL_SECONDS) share the feed: a skill keeps the type it handles.`,
    query: z.object({ caps: CAPS }),
    response: z.object({
      reactor_signals: z.array(z.union([PendingSignalSchema, ShockSignalSchema])),
      count: z.number().int(),
    }),
  }),
  deleteReactorPending: endpoint({
    method: 'delete',
    path: '/api/sdk/reactor/pending/{signal_id}',
    auth: 'agent',
    tag: 'Reactor',
    summary: 'Delete a pending signal after acting on it (ids with colons route as they are)',
    description:
      '`deleted: false` when it was deleted, expired or withdrawn already; 404 for an id the agent never had (signals are kept 24 hours).',
    params: z.object({ signal_id: z.string().min(1).max(400) }),
    response: z.object({ success: z.boolean(), signal_id: z.string(), deleted: z.boolean() }),
    errors: [404],
  }),
  getShockLadderConfig: endpoint({
    method: 'get',
    path: '/api/sdk/shock-ladder/config',
    auth: 'agent',
    tag: 'Reactor',
    summary: 'Whether shocks on live sports markets are queued on the agent’s Reactor feed',
    description:
      'Off until enabled. A shock: one outcome of a live imported sports market falls SHOCK_LADDER_DROP_CENTS below its highest of the last SHOCK_LADDER_WINDOW_SECONDS, seen at the venue price refresh.',
    response: ShockLadderConfigSchema,
  }),
  patchShockLadderConfig: endpoint({
    method: 'patch',
    path: '/api/sdk/shock-ladder/config',
    auth: 'agent',
    tag: 'Reactor',
    summary: 'Turn the agent’s shock-ladder signals on or off (from the next shock)',
    body: z.object({ enabled: z.boolean() }),
    response: ShockLadderConfigSchema,
  }),
  listReactorReactions: endpoint({
    method: 'get',
    path: '/api/sdk/reactor/reactions',
    auth: 'agent',
    tag: 'Reactor',
    summary: 'The agent’s latest reactions to signals, newest first',
    query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) }),
    response: z.object({ reactions: z.array(ReactionSchema), count: z.number().int() }),
  }),
  postReactorReaction: endpoint({
    method: 'post',
    path: '/api/sdk/reactor/reactions',
    auth: 'agent',
    tag: 'Reactor',
    summary: 'Record what the agent’s skill did with a signal (its journal; kept 30 days)',
    body: ReactionInputSchema,
    response: z.object({ success: z.boolean(), reaction: ReactionSchema }),
  }),
  reactorEvents: endpoint({
    method: 'get',
    path: '/api/sdk/reactor/events',
    auth: 'agent',
    tag: 'Reactor',
    summary: 'The agent’s latest whale events (the recent past of GET /api/sdk/reactor/stream), oldest first',
    description:
      'The `reactor_event` data of the agent’s signals of the last 24 hours, the latest `limit` (at most 50) in the order the stream sent them; withdrawn ones left out.',
    query: z.object({ limit: z.coerce.number().int().min(1).max(50).default(20), caps: CAPS }),
    response: z.object({ events: z.array(WhaleEventSchema), count: z.number().int() }),
  }),
};
