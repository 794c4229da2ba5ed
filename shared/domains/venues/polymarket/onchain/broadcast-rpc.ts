import type { PolygonRpc } from './polygon-rpc.js';
import { z } from 'zod';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type BroadcastRpcDeps = { polygon: PolygonRpc };

/**
 * The relay's two calls over `deps.polygon` (POLYGON_RPC_URL). Sending through the shared client
 * is safe with its retries: the same signed bytes sent twice are one transaction (the node answers
 * `already known` or `nonce too low`). A transport failure throws VenueHttpError (the job retries).
 */

/** A JSON-RPC error answer, with the node's own text (`already known`, `nonce too low: …`). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

async function call(deps: Pick<BroadcastRpcDeps, 'polygon'>, method: string, params: unknown[]) {
  const answer = await deps.polygon.send(method, params);
  if ('error' in answer) throw new RpcError(answer.error.code, answer.error.message);
  return answer.result;
}

/** Sends the signed bytes; resolves with the node's hash, throws RpcError with the node's text. */
export async function sendRawTransaction(deps: Pick<BroadcastRpcDeps, 'polygon'>, raw: string) {
  return z.string().parse(await call(deps, 'eth_sendRawTransaction', [raw]));
}

const QuantitySchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]+$/)
  .transform((q) => Number(BigInt(q)));
const LogSchema = z.object({
  address: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  topics: z.array(z.string().regex(/^0x[0-9a-fA-F]{64}$/)),
  data: z.string().regex(/^0x[0-9a-fA-F]*$/),
});
const ReceiptSchema = z
  .object({ status: QuantitySchema, blockNumber: QuantitySchema, logs: z.array(LogSchema) })
  .nullable();

/** One event a mined transaction emitted, as the node gives it. */
export type ReceiptLog = z.output<typeof LogSchema>;

/** The receipt: status (1 success, 0 reverted), block and logs in order; null while pending or unknown. */
export async function transactionReceipt(deps: Pick<BroadcastRpcDeps, 'polygon'>, hash: string) {
  return ReceiptSchema.parse((await call(deps, 'eth_getTransactionReceipt', [hash])) ?? null);
}

/** Whether the node knows the transaction at all (pending or mined). */
export async function transactionKnown(deps: Pick<BroadcastRpcDeps, 'polygon'>, hash: string) {
  return ((await call(deps, 'eth_getTransactionByHash', [hash])) ?? null) !== null;
}
