import { Router, type Request } from 'express';
import type { ApiKeyRecord } from '../clob-auth.js';
import { placeResponse, refusedResponse } from '../clob-wire.js';
import type { CancelResult } from '../exchange.js';
import { ERR, isV1Shaped, OrderRejection, verifyOrder } from '../order-verify.js';
import type { PolymarketState } from '../state.js';
import { l2 } from './clob-session.js';
import { HttpError, jsonRoute } from './json-route.js';

// Placing and cancelling orders (reference §5.1–§5.3). `POST /order` refuses with HTTP 4xx/5xx
// `{"error": …}`; `POST /orders` answers 200 with one result per order, refused ones as
// `{success: false, errorMsg}`, except that a V1-shaped order anywhere fails the whole batch with
// `order_version_mismatch` (what the official clients look for to re-read `/version`).

const MAX_CANCEL_IDS = 1000;

const isV1Item = (item: unknown): boolean => {
  const order = (item as { order?: unknown } | null)?.order;
  return typeof order === 'object' && order !== null && isV1Shaped(order as Record<string, unknown>);
};

const asHttp = (err: unknown): never => {
  if (err instanceof OrderRejection) throw new HttpError(err.status, err.message);
  throw err;
};

export function ordersRouter(state: PolymarketState): Router {
  const r = Router();
  const { exchange } = state;

  const tradingOpen = () => {
    if (exchange.settings.trading === 'disabled') throw new HttpError(503, ERR.disabled);
    if (exchange.settings.trading === 'cancel-only') throw new HttpError(503, ERR.cancelOnly);
  };
  const cancelsOpen = () => {
    if (exchange.settings.trading === 'disabled') throw new HttpError(503, ERR.disabled);
  };

  const placeOne = (item: unknown, key: ApiKeyRecord) => {
    const v = verifyOrder(item, {
      key,
      nowMs: state.now(),
      marketByToken: (t) => state.marketByToken(t),
      depositWalletOnly: exchange.settings.depositWalletOnly,
      depositWalletOwner: (a) => state.depositWallets.ownerOf(a),
    });
    return placeResponse(exchange.place(v, key));
  };

  r.post(
    '/order',
    jsonRoute((req) => {
      const key = l2(state, req);
      tradingOpen();
      try {
        return placeOne(req.body, key);
      } catch (err) {
        return asHttp(err);
      }
    }),
  );

  r.post(
    '/orders',
    jsonRoute((req) => {
      const key = l2(state, req);
      tradingOpen();
      const items: unknown = req.body;
      if (!Array.isArray(items) || items.length === 0) throw new HttpError(400, 'Invalid payload');
      if (items.some(isV1Item)) throw new HttpError(400, ERR.versionMismatch);
      return items.map((item) => {
        try {
          return placeOne(item, key);
        } catch (err) {
          if (err instanceof OrderRejection) return refusedResponse(err.message);
          throw err;
        }
      });
    }),
  );

  const cancelRoute = (path: string, ids: (req: Request, key: ApiKeyRecord) => string[]) =>
    r.delete(
      path,
      jsonRoute((req): CancelResult => {
        const key = l2(state, req);
        cancelsOpen();
        return exchange.cancel(ids(req, key), key.address);
      }),
    );

  cancelRoute('/order', (req) => {
    const id = (req.body as { orderID?: unknown } | undefined)?.orderID;
    if (typeof id !== 'string' || id === '') throw new HttpError(400, 'Invalid order payload');
    return [id];
  });
  cancelRoute('/orders', (req) => {
    const ids: unknown = req.body;
    if (!Array.isArray(ids) || !ids.every((x) => typeof x === 'string'))
      throw new HttpError(400, 'Invalid payload');
    if (ids.length > MAX_CANCEL_IDS) throw new HttpError(400, 'Payload exceeds the limit');
    return ids as string[];
  });
  cancelRoute('/cancel-all', (_req, key) => exchange.openOrders(key.address).map((o) => o.id));
  cancelRoute('/cancel-market-orders', (req, key) => {
    const b = (req.body ?? {}) as { market?: unknown; asset_id?: unknown };
    const market = typeof b.market === 'string' && b.market ? b.market.toLowerCase() : undefined;
    const asset = typeof b.asset_id === 'string' && b.asset_id ? b.asset_id : undefined;
    if (!market && !asset) throw new HttpError(400, 'Invalid payload');
    return exchange
      .openOrders(key.address)
      .filter((o) => (!market || o.conditionId.toLowerCase() === market) && (!asset || o.tokenId === asset))
      .map((o) => o.id);
  });

  return r;
}
