import { Interface, getAddress } from 'ethers';
import { z } from 'zod';
import { VenueHttpError, type VenueHttpClient } from '../../../../infra/http/venue-http-client.js';

/**
 * Polygon reads over plain JSON-RPC through the venue HTTP client, so the node gets the same
 * timeouts, retries, circuit breaker and metrics (venue `polygon`) as the venues' REST APIs. No
 * ethers provider: ethers' built-in chain-137 network would call the Polygon gas station on the
 * internet, and we only need a handful of `eth_call`s encoded with `Interface`.
 */

const RpcErrorSchema = z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() });
/** One JSON-RPC 2.0 answer: a `result` or an `error`. */
const RpcAnswerSchema = z.object({
  jsonrpc: z.literal('2.0').optional(),
  id: z.unknown().optional(),
  result: z.unknown().optional(),
  error: RpcErrorSchema.optional(),
});
export type RpcAnswer = { result: unknown } | { error: z.output<typeof RpcErrorSchema> };

/** The node answered the call with a JSON-RPC error (a revert, a bad parameter). */
export class PolygonRpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    readonly rpcMessage: string,
    readonly data?: unknown,
  ) {
    super(`polygon ${method}: ${rpcMessage} (${code})`);
    this.name = 'PolygonRpcError';
  }
}

const ERC20 = new Interface([
  'function balanceOf(address owner) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
]);
const ERC1155 = new Interface([
  'function isApprovedForAll(address owner, address operator) view returns (bool)',
  'function balanceOf(address owner, uint256 id) view returns (uint256)',
]);

const HexSchema = z.string().regex(/^0x[0-9a-fA-F]*$/);

export class PolygonRpc {
  private nextId = 1;

  constructor(private readonly http: VenueHttpClient) {}

  /**
   * One JSON-RPC call, its answer as the node gave it (result or error). Transport failures throw
   * VenueHttpError. Sent as idempotent: the service only sends reads and fee queries this way
   * (writes go through the broadcast relay), and a read repeated cannot do anything twice.
   */
  async send(method: string, params: readonly unknown[]): Promise<RpcAnswer> {
    const answer = await this.http.post('/', {
      endpoint: `rpc.${method}`,
      schema: RpcAnswerSchema,
      body: { jsonrpc: '2.0', id: this.nextId++, method, params },
      idempotent: true,
    });
    if (answer.error) return { error: answer.error };
    if (!('result' in answer))
      throw new VenueHttpError({
        kind: 'schema',
        venue: this.http.venue,
        endpoint: `rpc.${method}`,
        message: `polygon ${method}: answer carries neither result nor error`,
        retryable: false,
      });
    return { result: answer.result };
  }

  /** The call's `result`; a JSON-RPC error throws PolygonRpcError. */
  async request(method: string, params: readonly unknown[]): Promise<unknown> {
    const answer = await this.send(method, params);
    if ('error' in answer)
      throw new PolygonRpcError(method, answer.error.code, answer.error.message, answer.error.data);
    return answer.result;
  }

  /** `eth_call` at the latest block; the returned data as hex. */
  async call(to: string, data: string): Promise<string> {
    const result = await this.request('eth_call', [{ to: getAddress(to), data }, 'latest']);
    const hex = HexSchema.safeParse(result);
    if (!hex.success)
      throw new PolygonRpcError('eth_call', -32603, `eth_call answered a non-hex result`, result);
    return hex.data;
  }

  /** ERC-20 balance in base units. */
  async balanceOf(token: string, owner: string): Promise<bigint> {
    const out = await this.call(token, ERC20.encodeFunctionData('balanceOf', [getAddress(owner)]));
    return decode(ERC20, 'balanceOf', out) as bigint;
  }

  /** ERC-20 allowance of `spender` over `owner`'s tokens, in base units. */
  async allowance(token: string, owner: string, spender: string): Promise<bigint> {
    const data = ERC20.encodeFunctionData('allowance', [getAddress(owner), getAddress(spender)]);
    return decode(ERC20, 'allowance', await this.call(token, data)) as bigint;
  }

  /** ERC-1155 balance of one token id (a CTF outcome position), in base units. */
  async tokenBalance(token: string, owner: string, id: string): Promise<bigint> {
    const data = ERC1155.encodeFunctionData('balanceOf', [getAddress(owner), BigInt(id)]);
    return decode(ERC1155, 'balanceOf', await this.call(token, data)) as bigint;
  }

  /** ERC-1155 operator approval (the CTF's `setApprovalForAll`). */
  async isApprovedForAll(token: string, owner: string, operator: string): Promise<boolean> {
    const data = ERC1155.encodeFunctionData('isApprovedForAll', [getAddress(owner), getAddress(operator)]);
    return decode(ERC1155, 'isApprovedForAll', await this.call(token, data)) as boolean;
  }
}

/** `0x` (no code at the address) or short data is a broken answer for a view, not a zero. */
function decode(iface: Interface, fn: string, data: string): unknown {
  try {
    return iface.decodeFunctionResult(fn, data)[0];
  } catch {
    throw new PolygonRpcError('eth_call', -32603, `${fn} answered undecodable data (${data.slice(0, 20)})`);
  }
}
