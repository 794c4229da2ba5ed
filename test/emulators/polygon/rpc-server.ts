import express, { Router } from 'express';
import type { PolymarketState } from '../polymarket/state.js';
import { RpcError, type PolygonChain } from './chain-state.js';
import { rpcMethods } from './rpc-methods.js';

// JSON-RPC 2.0 over HTTP POST, single requests and batches, as a Polygon node answers them. The
// body is parsed here rather than by express.json so a malformed body gets the JSON-RPC parse
// error (-32700) instead of an HTTP 400, and so every answer is HTTP 200 like geth's.

interface RpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

type RpcResponse = { jsonrpc: '2.0'; id: unknown } & (
  { result: unknown } | { error: { code: number; message: string; data?: string } }
);

const failure = (id: unknown, code: number, message: string, data?: string): RpcResponse => ({
  jsonrpc: '2.0',
  id,
  error: data === undefined ? { code, message } : { code, message, data },
});

export function polygonRpcRouter(state: PolymarketState, chain: PolygonChain): Router {
  const r = Router();
  const methods = rpcMethods(state, chain);

  const call = (req: unknown): RpcResponse => {
    if (typeof req !== 'object' || req === null || Array.isArray(req))
      return failure(null, -32600, 'invalid request');
    const { id = null, method, params = [] } = req as RpcRequest;
    if ((req as RpcRequest).jsonrpc !== '2.0' || typeof method !== 'string')
      return failure(id, -32600, 'invalid request');
    const handler = Object.hasOwn(methods, method) ? methods[method] : undefined;
    // geth's text for an unknown method (code -32601, "method not found" in JSON-RPC 2.0 terms).
    if (!handler) return failure(id, -32601, `the method ${method} does not exist/is not available`);
    if (!Array.isArray(params)) return failure(id, -32602, 'non-array args');
    try {
      return { jsonrpc: '2.0', id, result: handler(params) };
    } catch (err) {
      if (err instanceof RpcError) return failure(id, err.code, err.message, err.data);
      console.error('[polygon emulator]', err);
      return failure(id, -32603, 'internal error');
    }
  };

  r.post('/', express.text({ type: () => true, limit: '5mb' }), (req, res) => {
    chain.sync();
    let body: unknown;
    try {
      body = JSON.parse(typeof req.body === 'string' ? req.body : '');
    } catch {
      res.json(failure(null, -32700, 'parse error'));
      return;
    }
    if (Array.isArray(body)) {
      if (body.length === 0) {
        res.json(failure(null, -32600, 'empty batch'));
        return;
      }
      res.json(body.map(call));
      return;
    }
    res.json(call(body));
  });

  return r;
}
