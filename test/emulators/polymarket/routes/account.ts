import { Router, type Request } from 'express';
import type { ApiKeyRecord } from '../clob-auth.js';
import { openOrderWire, page, tradeWire } from '../clob-wire.js';
import { CLOB_SPENDERS } from '../contracts.js';
import { uuidFrom } from '../ids.js';
import type { PolymarketState } from '../state.js';
import { proxyWalletOf, safeWalletOf } from '../wallet-derivation.js';
import { MAX_UINT256 } from '../wallet-ledger.js';
import { l2 } from './clob-session.js';
import { HttpError, jsonRoute } from './json-route.js';
import { one, uint } from './params.js';

// The caller's own orders, trades and balances (reference §5.3), all L2. Orders and trades belong
// to the EOA of the API key, so every key of one wallet sees the same ones. Lists are cursor pages
// (`MA==` … `LTE=`), orders oldest first, trades newest first. An order id that is not the
// caller's answers `null` (the real service answers nothing useful either).

export function accountRouter(state: PolymarketState): Router {
  const r = Router();
  const { exchange, ledger } = state;

  const paged = <T>(req: Request, rows: T[]) => {
    const p = page(rows, one(req, 'next_cursor'), exchange.settings.pageSize);
    if (!p) throw new HttpError(400, 'invalid next_cursor');
    return p;
  };

  r.get(
    '/data/order/:orderId',
    jsonRoute((req) => {
      const key = l2(state, req);
      const o = exchange.orders.get(String(req.params.orderId));
      return o && o.ownerAddress === key.address ? openOrderWire(o) : null;
    }),
  );

  r.get(
    '/data/orders',
    jsonRoute((req) => {
      const key = l2(state, req);
      const market = one(req, 'market')?.toLowerCase();
      const asset = one(req, 'asset_id');
      const id = one(req, 'id');
      const rows = exchange
        .openOrders(key.address)
        .filter(
          (o) =>
            (!market || o.conditionId.toLowerCase() === market) &&
            (!asset || o.tokenId === asset) &&
            (!id || o.id === id),
        )
        .sort((a, b) => a.seq - b.seq)
        .map(openOrderWire);
      return paged(req, rows);
    }),
  );

  r.get(
    '/data/trades',
    jsonRoute((req) => {
      const key = l2(state, req);
      const id = one(req, 'id');
      const market = one(req, 'market')?.toLowerCase();
      const asset = one(req, 'asset_id');
      const makerAddress = one(req, 'maker_address')?.toLowerCase();
      const before = uint(one(req, 'before'));
      const after = uint(one(req, 'after'));
      if (before === null || after === null) throw new HttpError(400, 'invalid filters');
      const mine = (t: { takerOwnerAddress: string; makers: { ownerAddress: string }[] }) =>
        t.takerOwnerAddress === key.address || t.makers.some((m) => m.ownerAddress === key.address);
      const rows = [...exchange.trades.values()]
        .filter(
          (t) =>
            mine(t) &&
            (!id || t.id === id) &&
            (!market || t.conditionId.toLowerCase() === market) &&
            (!asset || t.tokenId === asset) &&
            (!makerAddress ||
              t.takerMaker.toLowerCase() === makerAddress ||
              t.makers.some((m) => m.makerAddress.toLowerCase() === makerAddress)) &&
            (before === undefined || t.matchMs / 1000 <= before) &&
            (after === undefined || t.matchMs / 1000 >= after),
        )
        .sort((a, b) => b.seq - a.seq)
        .map((t) => tradeWire(t, key.address));
      return paged(req, rows);
    }),
  );

  /** The funder whose balance the CLOB checks for this key and signature type (§6.3). */
  const funder = (key: ApiKeyRecord, signatureType: string | undefined): string => {
    switch (signatureType ?? '0') {
      case '0':
        return key.address;
      case '1':
        return proxyWalletOf(key.address);
      case '2':
        return safeWalletOf(key.address);
      case '3':
        // Deposit wallets are learned from this EOA's type-3 orders; before any, the EOA itself.
        return exchange.depositWallets.get(key.address) ?? key.address;
      default:
        throw new HttpError(400, 'invalid signature_type');
    }
  };

  const balanceAllowance = (req: Request) => {
    const key = l2(state, req);
    const owner = funder(key, one(req, 'signature_type'));
    const assetType = one(req, 'asset_type');
    if (assetType === 'COLLATERAL') {
      return {
        balance: ledger.pusdBalance(owner).toString(),
        allowances: Object.fromEntries(CLOB_SPENDERS.map((s) => [s, ledger.allowance(owner, s).toString()])),
      };
    }
    if (assetType === 'CONDITIONAL') {
      const token = one(req, 'token_id');
      if (!token || !/^\d{1,80}$/.test(token)) throw new HttpError(400, 'Invalid token id');
      return {
        balance: ledger.tokenBalance(owner, token).toString(),
        allowances: Object.fromEntries(
          CLOB_SPENDERS.map((s) => [s, ledger.isApprovedForAll(owner, s) ? MAX_UINT256.toString() : '0']),
        ),
      };
    }
    // CONDITIONAL-V2 belongs to Protocol-V2 markets, which the emulator does not list.
    throw new HttpError(400, 'invalid asset_type');
  };
  // The emulated CLOB reads the ledger live, so "update" has nothing to refresh.
  r.get('/balance-allowance', jsonRoute(balanceAllowance));
  r.get('/balance-allowance/update', jsonRoute(balanceAllowance));

  r.post(
    '/v1/heartbeats',
    jsonRoute((req) => {
      const key = l2(state, req);
      const given = (req.body as { heartbeat_id?: unknown } | undefined)?.heartbeat_id;
      return {
        heartbeat_id:
          typeof given === 'string' && given ? given : uuidFrom(`heartbeat:${key.apiKey}:${state.now()}`),
      };
    }),
  );

  return r;
}
