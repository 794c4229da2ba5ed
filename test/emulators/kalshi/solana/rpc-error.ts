/** A JSON-RPC error as a Solana node answers it: `{code, message, data?}`. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** A failed preflight simulation (-32002), with the simulation result in `data` like Agave's. */
export function preflightFailure(
  reason: string,
  err: unknown,
  logs: string[] = [],
  unitsConsumed = 0,
): RpcError {
  return new RpcError(-32002, `Transaction simulation failed: ${reason}`, {
    accounts: null,
    err,
    innerInstructions: null,
    logs,
    replacementBlockhash: null,
    returnData: null,
    unitsConsumed,
  });
}
