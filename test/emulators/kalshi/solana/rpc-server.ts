import express, { Router } from 'express';
import type { KalshiState } from '../state.js';
import { takeFault } from '../control.js';
import { dropTransaction, rpcMethods } from './rpc-methods.js';
import { RpcError } from './rpc-error.js';

// JSON-RPC 2.0 over HTTP POST, single requests and batches, every answer HTTP 200 like an Agave
// node. The body is parsed here so a malformed one gets the JSON-RPC parse error (-32700). The
// RPC-level faults live here too: `unhealthy` (-32005) and `drop` (the signature comes back, the
// transaction never lands).

interface RpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

const failure = (id: unknown, code: number, message: string, data?: unknown) => ({
  jsonrpc: '2.0' as const,
  error: data === undefined ? { code, message } : { code, message, data },
  id,
});

export function solanaRpcRouter(state: KalshiState): Router {
  const r = Router();
  const methods = rpcMethods(state);

  const call = (req: unknown) => {
    if (typeof req !== 'object' || req === null || Array.isArray(req))
      return failure(null, -32600, 'Invalid request');
    const { id = null, method, params = [] } = req as RpcRequest;
    if ((req as RpcRequest).jsonrpc !== '2.0' || typeof method !== 'string')
      return failure(id, -32600, 'Invalid request');
    const logged = state.requests.at(-1);
    if (logged) logged.rpcMethod = method;
    const handler = Object.hasOwn(methods, method) ? methods[method] : undefined;
    if (!handler) return failure(id, -32601, 'Method not found');
    if (!Array.isArray(params))
      return failure(id, -32602, 'Invalid params: invalid type: map, expected a sequence');
    try {
      if (takeFault(state, '/solana', ['unhealthy']))
        return failure(id, -32005, 'Node is unhealthy', { numSlotsBehind: null });
      if (method === 'sendTransaction' && takeFault(state, '/solana', ['drop']))
        return { jsonrpc: '2.0' as const, result: dropTransaction(state, params), id };
      return { jsonrpc: '2.0' as const, result: handler(params), id };
    } catch (err) {
      if (err instanceof RpcError) return failure(id, err.code, err.message, err.data);
      console.error('[solana emulator]', err);
      return failure(id, -32603, 'Internal error');
    }
  };

  r.post('/', express.text({ type: () => true, limit: '1mb' }), (req, res) => {
    let body: unknown;
    try {
      body = JSON.parse(typeof req.body === 'string' ? req.body : '');
    } catch {
      res.json(failure(null, -32700, 'Parse error'));
      return;
    }
    if (Array.isArray(body)) {
      res.json(body.length === 0 ? failure(null, -32600, 'Invalid request') : body.map(call));
      return;
    }
    res.json(call(body));
  });
  return r;
}
