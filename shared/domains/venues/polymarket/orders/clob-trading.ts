import { createHmac } from 'node:crypto';
import type { VenueHttpClient } from '../../../../infra/http/venue-http-client.js';
import type { SignedV2Order } from './order-eip712.js';
import {
  CancelAnswerSchema,
  OpenOrderSchema,
  PostOrderAnswerSchema,
  TradesPageSchema,
  type CancelAnswer,
  type ClobTrade,
  type OpenOrder,
  type PostOrderAnswer,
} from './clob-trading.schemas.js';

/** A user's CLOB API credentials (L2), decrypted for one call and never kept. */
export interface ClobCredentials {
  apiKey: string;
  secret: string;
  passphrase: string;
  /** The EOA that owns the key (POLY_ADDRESS). */
  address: string;
}

export type ClobOrderType = 'GTC' | 'GTD' | 'FOK' | 'FAK';

/** The last page of a CLOB cursor (base64 of "-1"). */
const END_CURSOR = 'LTE=';

/**
 * The L2 signature (polymarket.md §4.2): base64url HMAC-SHA256 of timestamp + METHOD + path (no
 * query) + the exact body sent, keyed by the base64-decoded secret, `=` padding kept.
 */
export function l2Signature(
  secret: string,
  timestamp: string,
  method: string,
  path: string,
  body = '',
): string {
  const key = Buffer.from(secret.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return createHmac('sha256', key)
    .update(`${timestamp}${method}${path}${body}`)
    .digest('base64')
    .replace(/\+/g, '-')
    .replace(/\//g, '_');
}

/**
 * The authenticated half of the CLOB: orders, cancels, order and trade reads, each call signed
 * with the user's L2 credentials. Shares the CLOB host's client (and circuit breaker) with the
 * market-data reads.
 */
export class ClobTrading {
  constructor(
    private readonly http: VenueHttpClient,
    private readonly nowSeconds: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  private headers(creds: ClobCredentials, method: string, path: string, body?: unknown) {
    const timestamp = String(this.nowSeconds());
    return {
      POLY_ADDRESS: creds.address,
      POLY_SIGNATURE: l2Signature(
        creds.secret,
        timestamp,
        method,
        path,
        body === undefined ? '' : JSON.stringify(body),
      ),
      POLY_TIMESTAMP: timestamp,
      POLY_API_KEY: creds.apiKey,
      POLY_PASSPHRASE: creds.passphrase,
    };
  }

  /**
   * Posts a signed order. Safe to repeat: the CLOB refuses the same order twice ("Duplicated"),
   * so a lost answer is retried, and a duplicate is then found by its hash (`order`).
   */
  async postOrder(
    creds: ClobCredentials,
    order: SignedV2Order,
    orderType: ClobOrderType,
  ): Promise<PostOrderAnswer> {
    const body = {
      order: { ...order, salt: Number(order.salt) },
      owner: creds.apiKey,
      orderType,
      postOnly: false,
      deferExec: false,
    };
    return this.http.post('/order', {
      endpoint: 'clob.post_order',
      schema: PostOrderAnswerSchema,
      body,
      headers: this.headers(creds, 'POST', '/order', body),
      idempotent: true,
    });
  }

  /** An order by id (its hash), or null when the CLOB does not know it. */
  async order(creds: ClobCredentials, orderId: string): Promise<OpenOrder | null> {
    const path = `/data/order/${orderId}`;
    return this.http.get(path, {
      endpoint: 'clob.order',
      schema: OpenOrderSchema.nullable(),
      headers: this.headers(creds, 'GET', path),
      notFoundAs: 'null',
    });
  }

  /** Every trade of one taker order (all pages). */
  async tradesOf(creds: ClobCredentials, query: { id?: string; market?: string }): Promise<ClobTrade[]> {
    const rows: ClobTrade[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const answer = await this.http.get('/data/trades', {
        endpoint: 'clob.trades',
        schema: TradesPageSchema,
        query: { ...query, ...(cursor ? { next_cursor: cursor } : {}) },
        headers: this.headers(creds, 'GET', '/data/trades'),
      });
      rows.push(...answer.data);
      if (!answer.next_cursor || answer.next_cursor === END_CURSOR) break;
      cursor = answer.next_cursor;
    }
    return rows;
  }

  cancel(creds: ClobCredentials, orderIds: string[]): Promise<CancelAnswer> {
    const body = orderIds;
    return this.http.delete('/orders', {
      endpoint: 'clob.cancel_orders',
      schema: CancelAnswerSchema,
      body,
      headers: this.headers(creds, 'DELETE', '/orders', body),
    });
  }
}
