import {
  AllowancesParamsSchema,
  AllowancesQuerySchema,
  AllowancesResponseSchema,
  RpcRequestSchema,
  RpcResponseSchema,
} from '../../shared/domains/wallets/onchain.schemas.js';
import { endpoint } from './endpoint.js';

export const onchainEndpoints = {
  polymarketAllowances: endpoint({
    method: 'get',
    path: '/api/polymarket/allowances/{address}',
    auth: 'agent',
    tag: 'Wallet',
    summary: 'Whether a wallet has the on-chain approvals Polymarket trading and redemption need',
    description:
      'Reads the pUSD allowances and CTF operator approvals of the CLOB V2 exchanges and adapters on Polygon (any address: public chain data). An answer with everything set is cached per address for 30 s; one with approvals missing is read from the chain on every call (a wallet setting its approvals sees each one land); `no_cache=1` always reads the chain. `include_tx_params=1` adds the unsigned approval transactions for the missing keys, to sign and send through `POST /api/sdk/wallet/broadcast-tx`. 503 `venue_unavailable` when the Polygon RPC cannot be reached.',
    params: AllowancesParamsSchema,
    query: AllowancesQuerySchema,
    response: AllowancesResponseSchema,
    errors: [503],
  }),
  polygonRpc: endpoint({
    method: 'post',
    path: '/api/rpc/polygon',
    auth: 'agent',
    tag: 'Wallet',
    summary: 'Authenticated Polygon JSON-RPC proxy for reads and fee queries',
    description:
      'JSON-RPC 2.0, one call per request. Methods: eth_chainId, net_version, eth_blockNumber, eth_getBlockByNumber, eth_getBalance, eth_getTransactionCount, eth_getTransactionReceipt, eth_getTransactionByHash, eth_getCode, eth_call, eth_estimateGas, eth_gasPrice, eth_maxPriorityFeePerGas, eth_feeHistory. Any other method (notably eth_sendRawTransaction: use `POST /api/sdk/wallet/broadcast-tx`) is answered with JSON-RPC error -32601 saying why. The node’s own errors come back as JSON-RPC errors; an unreachable node is a 503 `venue_unavailable`. 120 calls per minute per agent.',
    body: RpcRequestSchema,
    response: RpcResponseSchema,
    errors: [429, 503],
    rateLimit: 'polygon-rpc',
  }),
};
