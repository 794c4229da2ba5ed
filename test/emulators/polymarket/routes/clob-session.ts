import type { Request } from 'express';
import { AuthError, L2_ERROR, verifyL1, type ApiKeyRecord } from '../clob-auth.js';
import type { PolymarketState } from '../state.js';
import { HttpError } from './json-route.js';

// Who is calling the CLOB: L1 (wallet signature) for the key endpoints, L2 (API key + HMAC) for
// everything else. The L2 HMAC covers the raw body bytes the client sent, which the JSON parser
// keeps for us (index.ts), and the path without the service prefix or query string.

export type RawBodyRequest = Request & { rawBody?: string };

/** Auth timestamps may match the emulator clock or the injected clock without the admin offset. */
const clocksSec = (state: PolymarketState) => [
  Math.floor(state.now() / 1000),
  Math.floor(state.clientClockMs() / 1000),
];

export function l1(state: PolymarketState, req: Request): { address: string; nonce: string } {
  try {
    return verifyL1((h) => req.get(h), clocksSec(state), state.exchange.settings.authSkewSec);
  } catch (err) {
    if (err instanceof AuthError) throw new HttpError(401, err.message);
    throw err;
  }
}

export function l2(state: PolymarketState, req: Request): ApiKeyRecord {
  try {
    return state.exchange.keys.verifyL2(
      (h) => req.get(h),
      { method: req.method, path: req.path, rawBody: (req as RawBodyRequest).rawBody },
      clocksSec(state),
      state.exchange.settings.authSkewSec,
    );
  } catch (err) {
    if (err instanceof AuthError) throw new HttpError(401, L2_ERROR);
    throw err;
  }
}
