import { VenueHttpError } from '../../../../infra/http/venue-http-client.js';
import { venueUnavailable } from '../../venue-unavailable.js';
import type { PolygonRpc, RpcAnswer } from './polygon-rpc.js';

/**
 * `POST /api/rpc/polygon` (client-contract §8.3): an authenticated JSON-RPC proxy so that clients
 * without a Polygon node of their own can read chain state and fees. Limited to reads and fee
 * queries: anything that writes (above all `eth_sendRawTransaction`) must go through the broadcast
 * relay and its allow-list, or this proxy would be an open relay for any transaction.
 */

/** What the official client sends (§8.3–8.6) plus the reads ethers needs to build a transaction. */
export const PROXIED_METHODS: ReadonlySet<string> = new Set([
  'eth_chainId',
  'net_version',
  'eth_blockNumber',
  'eth_getBlockByNumber',
  'eth_getBalance',
  'eth_getTransactionCount',
  'eth_getTransactionReceipt',
  'eth_getTransactionByHash',
  'eth_getCode',
  'eth_call',
  'eth_estimateGas',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_feeHistory',
]);

/** JSON-RPC 2.0 "method not found"; geth answers it for methods it does not expose either. */
export const METHOD_NOT_AVAILABLE = -32601;

function refusal(method: string): string {
  if (method === 'eth_sendRawTransaction' || method === 'eth_sendTransaction')
    return `${method} is not available through this proxy: send the signed transaction as {"signed_tx": "0x…"} to POST /api/sdk/wallet/broadcast-tx, which relays approvals and redemptions to the Polymarket contracts.`;
  return `the method ${method} is not available through this proxy: it serves only the read and fee methods ${[...PROXIED_METHODS].join(', ')}; signed transactions go to POST /api/sdk/wallet/broadcast-tx.`;
}

export interface RpcProxyRequest {
  method: string;
  params: unknown[];
  id: string | number | null;
}

export type RpcProxyAnswer = { jsonrpc: '2.0'; id: string | number | null } & RpcAnswer;

export async function proxyPolygonRpc(
  deps: { polygon: PolygonRpc },
  req: RpcProxyRequest,
): Promise<RpcProxyAnswer> {
  const base = { jsonrpc: '2.0' as const, id: req.id };
  if (!PROXIED_METHODS.has(req.method))
    return { ...base, error: { code: METHOD_NOT_AVAILABLE, message: refusal(req.method) } };
  try {
    // The node's own answer, error included (a revert, "nonce too low" on estimate, …): the client
    // reacts to those texts as it would with a direct node.
    return { ...base, ...(await deps.polygon.send(req.method, req.params)) };
  } catch (err) {
    if (err instanceof VenueHttpError) throw venueUnavailable(err);
    throw err;
  }
}
