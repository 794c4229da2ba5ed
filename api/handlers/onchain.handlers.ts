import { readAllowances } from '../../shared/domains/onchain/allowances.js';
import { proxyPolygonRpc } from '../../shared/domains/onchain/rpc-proxy.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { onchainEndpoints } from '../endpoints/onchain.endpoints.js';

export const onchainHandlers: HandlersFor<typeof onchainEndpoints> = {
  polymarketAllowances: ({ deps, params, query }) =>
    readAllowances(deps, params.address, {
      noCache: query.no_cache,
      includeTxParams: query.include_tx_params,
    }),
  polygonRpc: ({ deps, body }) => proxyPolygonRpc(deps, body),
};
