import { randomUUID } from 'node:crypto';
import { listImportable } from '../../shared/domains/imports/list-importable.js';
import {
  submitAdapterImport,
  submitPageImport,
  submitTickerImport,
} from '../../shared/domains/imports/submit-import.js';
import { executablePrice } from '../../shared/domains/markets/executable-price.js';
import { checkMarket } from '../../shared/domains/markets/check-market.js';
import { listFastMarkets } from '../../shared/domains/markets/fast-markets.js';
import { priceHistory } from '../../shared/domains/markets/history.js';
import { marketChartHistory } from '../../shared/domains/markets/chart-history.js';
import { getMarket, listMarkets, listPublicMarkets } from '../../shared/domains/markets/read-markets.js';
import { publicBaseUrl } from '../../shared/infra/config/env.js';
import type { Deps } from '../../shared/composition/deps.js';
import { cachedRead } from '../../shared/infra/read-cache.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import { JsonText, withFields } from '../http/json-text.js';
import { sharedRead } from '../http/shared-read.js';
import type { marketEndpoints } from '../endpoints/markets.endpoints.js';

interface TimedRow {
  resolves_at: string | null;
  seconds_to_resolution: number | null;
}

interface MarketList {
  markets: TimedRow[];
  warning?: string;
}

/** Seconds from `now` to `resolvesAt` (epoch ms), as JSON: null when there is none. */
const secondsTo = (resolvesAt: number, now: number) =>
  Number.isFinite(resolvesAt) ? String((resolvesAt - now) / 1000) : 'null';

/** A shared body serialised once, with a hole in each row where `seconds_to_resolution` goes. */
interface RowsTemplate {
  parts: string[];
  resolvesAt: number[];
  warning?: string;
}

/** One template per cached body object: it lives exactly as long as this process keeps the body. */
const templates = new WeakMap<object, RowsTemplate>();

/** `body`'s template, `rows` being its market rows (the list's, or the single market). */
function templateOf<B extends object>(
  body: B & { warning?: string },
  rows: (b: B) => TimedRow[],
): RowsTemplate {
  const known = templates.get(body);
  if (known) return known;
  const hole = randomUUID();
  const { warning, ...rest } = body;
  const timed = rows(body);
  const isRow = new Set<object>(timed);
  const text = JSON.stringify(rest, function (this: object, key: string, value: unknown) {
    return key === 'seconds_to_resolution' && isRow.has(this) ? hole : value;
  });
  const template = {
    parts: text.split(JSON.stringify(hole)),
    resolvesAt: timed.map((m) => (m.resolves_at ? Date.parse(m.resolves_at) : NaN)),
    warning,
  };
  templates.set(body, template);
  return template;
}

function render({ parts, resolvesAt }: RowsTemplate, now: number): string {
  let text = parts[0]!;
  for (let i = 0; i < resolvesAt.length; i++) text += secondsTo(resolvesAt[i]!, now) + parts[i + 1]!;
  return text;
}

const withSecondsToResolution = (rows: TimedRow[], now: number) => {
  for (const m of rows)
    m.seconds_to_resolution = m.resolves_at ? (Date.parse(m.resolves_at) - now) / 1000 : null;
};

/**
 * Lists are shared across agents for READ_CACHE_SECONDS, and served from a template serialised
 * once per process and cache entry: only `seconds_to_resolution` is written per answer, since the
 * spec defines it at response time. `extra` fields are the caller's own (e.g. `agent_id`).
 */
async function sharedList<T extends MarketList, E extends Record<string, unknown>>(
  deps: Deps,
  name: string,
  params: unknown,
  compute: () => Promise<T>,
  extra: E,
): Promise<(T & E) | JsonText<T & E>> {
  if (deps.env.READ_CACHE_SECONDS <= 0) {
    const list = await compute();
    withSecondsToResolution(list.markets, deps.clock().getTime());
    return { ...list, ...extra };
  }
  const list = await cachedRead(
    deps.redis,
    deps.env.QUEUE_PREFIX,
    name,
    params,
    deps.env.READ_CACHE_SECONDS,
    compute,
  );
  const template = templateOf(list, (l) => l.markets);
  return new JsonText(withFields(render(template, deps.clock().getTime()), extra), template.warning);
}

/**
 * One market, shared across agents for READ_CACHE_SECONDS like the lists (its price moves with
 * trades, so it is as fresh as the list that points to it), and kept serialised per process: a read
 * writes `seconds_to_resolution` and `agent_id` into the stored text instead of building and
 * serialising the market view again. An unknown id is not cached (getMarket throws).
 */
async function sharedMarket(deps: Deps, marketId: string, agentId: string) {
  const compute = () => getMarket(deps.models, marketId, publicBaseUrl(deps.env), deps.clock());
  if (deps.env.READ_CACHE_SECONDS <= 0) return { market: await compute(), agent_id: agentId };
  const body = await cachedRead(
    deps.redis,
    deps.env.QUEUE_PREFIX,
    'market',
    { marketId },
    deps.env.READ_CACHE_SECONDS,
    async () => ({ market: await compute() }),
  );
  const template = templateOf(body, (b) => [b.market]);
  return new JsonText<typeof body & { agent_id: string }>(
    withFields(render(template, deps.clock().getTime()), { agent_id: agentId }),
  );
}

/** The chart data of a market, shared by the public JSON route and the dashboard's market page. */
export const publicChartHistory = (deps: Deps, marketId: string, q: { hours: number; interval: number }) =>
  sharedRead(deps, 'market-chart', { marketId, ...q }, () =>
    marketChartHistory(deps.models, marketId, q.hours, q.interval, deps.clock()),
  );

export const marketHandlers: HandlersFor<typeof marketEndpoints> = {
  checkMarket: async ({ deps, query }) => checkMarket(deps.models, deps.venues, query),
  listMarkets: async ({ deps, agent, query }) =>
    sharedList(
      deps,
      'markets',
      query,
      () => listMarkets(deps.models, query, publicBaseUrl(deps.env), deps.clock()),
      { agent_id: agent._id },
    ),
  importableMarkets: async ({ deps, agent, query }) => ({
    ...(await listImportable(deps, query)),
    agent_id: agent._id,
  }),
  importMarket: async ({ deps, agent, body, res }) => {
    const answer = await submitPageImport(deps, agent, 'polymarket', body);
    res.set(answer.headers);
    return answer.body;
  },
  importKalshiMarket: async ({ deps, agent, body, res }) => {
    const answer = await submitTickerImport(deps, agent, 'kalshi', body);
    res.set(answer.headers);
    return answer.body;
  },
  importKalshiEvent: async ({ deps, agent, body, res }) => {
    const answer = await submitTickerImport(deps, agent, 'kalshi', body);
    res.set(answer.headers);
    return answer.body;
  },
  importVenueMarket: async ({ deps, agent, body, res }) => {
    const answer = await submitAdapterImport(deps, agent, body);
    res.set(answer.headers);
    return answer.body;
  },
  getMarket: async ({ deps, agent, params }) => sharedMarket(deps, params.market_id, agent._id),
  executablePrice: async ({ deps, params, query }) => executablePrice(deps, params.market_id, query),
  marketHistory: async ({ deps, params, query }) =>
    priceHistory(deps.models, params.market_id, query.hours, query.interval, deps.clock()),
  publicMarkets: async ({ deps, query }) =>
    sharedList(
      deps,
      'public-markets',
      query,
      () => listPublicMarkets(deps.models, query, publicBaseUrl(deps.env), deps.clock()),
      {},
    ),
  publicMarketHistory: async ({ deps, params, query }) => publicChartHistory(deps, params.market_id, query),
  fastMarkets: async ({ deps, agent, query }) => ({
    ...(await listFastMarkets(deps.models, query, publicBaseUrl(deps.env), deps.clock())),
    agent_id: agent._id,
  }),
};
