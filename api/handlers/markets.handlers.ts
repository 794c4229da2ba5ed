import { listImportable } from '../../shared/domains/imports/list-importable.js';
import { submitImport } from '../../shared/domains/imports/submit-import.js';
import { executablePrice } from '../../shared/domains/markets/executable-price.js';
import { checkMarket } from '../../shared/domains/markets/check-market.js';
import { listFastMarkets } from '../../shared/domains/markets/fast-markets.js';
import { priceHistory } from '../../shared/domains/markets/history.js';
import { getMarket, listMarkets, listPublicMarkets } from '../../shared/domains/markets/read-markets.js';
import { publicBaseUrl } from '../../shared/infra/config/env.js';
import type { Deps } from '../../shared/composition/deps.js';
import { cachedRead } from '../../shared/infra/read-cache.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { marketEndpoints } from '../endpoints/markets.endpoints.js';

/**
 * Lists are shared across agents for READ_CACHE_SECONDS; `seconds_to_resolution` is recomputed on
 * every answer, since the spec defines it at response time.
 */
async function sharedList<
  T extends { markets: { resolves_at: string | null; seconds_to_resolution: number | null }[] },
>(deps: Deps, name: string, params: unknown, compute: () => Promise<T>): Promise<T> {
  const list =
    deps.env.READ_CACHE_SECONDS > 0
      ? await cachedRead(
          deps.redis,
          deps.env.QUEUE_PREFIX,
          name,
          params,
          deps.env.READ_CACHE_SECONDS,
          compute,
        )
      : await compute();
  const now = deps.clock().getTime();
  for (const m of list.markets)
    m.seconds_to_resolution = m.resolves_at ? (Date.parse(m.resolves_at) - now) / 1000 : null;
  return list;
}

export const marketHandlers: HandlersFor<typeof marketEndpoints> = {
  checkMarket: async ({ deps, query }) => checkMarket(deps.models, query),
  listMarkets: async ({ deps, agent, query }) => ({
    ...(await sharedList(deps, 'markets', query, () =>
      listMarkets(deps.models, query, publicBaseUrl(deps.env), deps.clock()),
    )),
    agent_id: agent._id,
  }),
  importableMarkets: async ({ deps, agent, query }) => ({
    ...(await listImportable(deps, query)),
    agent_id: agent._id,
  }),
  importMarket: async ({ deps, agent, body, res }) => {
    const answer = await submitImport(deps, agent, body);
    res.set(answer.headers);
    return answer.body;
  },
  getMarket: async ({ deps, agent, params }) => ({
    market: await getMarket(deps.models, params.market_id, publicBaseUrl(deps.env), deps.clock()),
    agent_id: agent._id,
  }),
  executablePrice: async ({ deps, params, query }) => executablePrice(deps, params.market_id, query),
  marketHistory: async ({ deps, params, query }) =>
    priceHistory(deps.models, params.market_id, query.hours, query.interval, deps.clock()),
  publicMarkets: async ({ deps, query }) =>
    sharedList(deps, 'public-markets', query, () =>
      listPublicMarkets(deps.models, query, publicBaseUrl(deps.env), deps.clock()),
    ),
  fastMarkets: async ({ deps, agent, query }) => ({
    ...(await listFastMarkets(deps.models, query, publicBaseUrl(deps.env), deps.clock())),
    agent_id: agent._id,
  }),
};
