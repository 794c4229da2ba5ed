import { onchain } from '../../shared/composition/onchain.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { onchainEndpoints } from '../endpoints/onchain.endpoints.js';

export const onchainHandlers: HandlersFor<typeof onchainEndpoints> = {
  polymarketAllowances: ({ deps, params, query }) =>
    onchain.readAllowances(deps, params.address, {
      noCache: query.no_cache,
      includeTxParams: query.include_tx_params,
    }),
  polygonRpc: ({ deps, body }) => onchain.proxyPolygonRpc(deps, body),
};
