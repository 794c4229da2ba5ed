import { Router } from 'express';
import type { PolymarketState } from '../state.js';
import { l1, l2 } from './clob-session.js';
import { HttpError, jsonRoute } from './json-route.js';

// CLOB API credentials (reference §4.1). Creating a key that exists is a 400, after which the
// official clients derive it; deriving a key that was never created is a 400 as well. The error
// texts are the ones the real service is reported to send.

export function authRouter(state: PolymarketState): Router {
  const r = Router();
  const creds = (k: { apiKey: string; secret: string; passphrase: string }) => ({
    apiKey: k.apiKey,
    secret: k.secret,
    passphrase: k.passphrase,
  });

  r.post(
    '/auth/api-key',
    jsonRoute((req) => {
      const { address, nonce } = l1(state, req);
      const key = state.exchange.keys.create(address, nonce);
      if (!key) throw new HttpError(400, 'Could not create api key');
      return creds(key);
    }),
  );
  r.get(
    '/auth/derive-api-key',
    jsonRoute((req) => {
      const { address, nonce } = l1(state, req);
      const key = state.exchange.keys.derive(address, nonce);
      if (!key) throw new HttpError(400, 'Could not derive api key!');
      return creds(key);
    }),
  );
  r.get(
    '/auth/api-keys',
    jsonRoute((req) => {
      const key = l2(state, req);
      return { apiKeys: state.exchange.keys.keysOf(key.address).map((k) => k.apiKey) };
    }),
  );
  r.delete(
    '/auth/api-key',
    jsonRoute((req) => {
      const key = l2(state, req);
      state.exchange.keys.delete(key.apiKey);
      return 'OK';
    }),
  );
  r.get(
    '/auth/ban-status/closed-only',
    jsonRoute((req) => {
      l2(state, req);
      return { closed_only: false };
    }),
  );
  return r;
}
