import { z } from 'zod';
import type { Env } from '../../../../../infra/config/env.js';
import { AppError } from '../../../../../infra/errors.js';
import type { VenueHttpClient } from '../../../../../infra/http/venue-http-client.js';
import { l2Signature } from '../../orders/clob-trading.js';
import { POLYGON_CONTRACTS } from '../polygon-contracts.js';
import type { BatchCall } from './batch.js';

/**
 * Polymarket's relayer (polymarket.md §8.4), the only way a deposit wallet acts on chain: it deploys
 * the wallet from the factory (`WALLET-CREATE`, no user signature) and executes a `Batch` of calls
 * the wallet's owner signed (`WALLET`), paying the gas. Submissions carry the service's builder
 * credentials as `POLY_BUILDER_*` headers, the CLOB L2 HMAC over timestamp + method + path + body
 * (the relayer client of polynode, which the official Simmer client depends on, signs them so).
 */

const SubmitAnswerSchema = z.object({
  transactionID: z.string().min(1),
  transactionHash: z.string().optional(),
  state: z.string().optional(),
});

const TransactionRowSchema = z.object({
  transactionID: z.string(),
  transactionHash: z.string().nullish(),
  state: z.string(),
  errorMsg: z.string().nullish(),
});
const TransactionAnswerSchema = z.union([z.array(TransactionRowSchema), TransactionRowSchema]);

const NonceAnswerSchema = z.object({
  nonce: z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative()]),
});
const DeployedAnswerSchema = z.object({ deployed: z.boolean() });

/** Final relayer states (§8.4): mined or confirmed is done, failed or reverted is not. */
const DONE = new Set(['STATE_MINED', 'STATE_CONFIRMED']);
const FAILED = new Set(['STATE_FAILED', 'STATE_REVERTED', 'STATE_INVALID']);

export interface RelayerTransaction {
  id: string;
  state: string;
  hash: string | null;
  error: string | null;
  /** done: executed; failed: reverted or refused; pending: still in flight when we stopped waiting. */
  outcome: 'done' | 'failed' | 'pending';
}

export interface BatchSubmission {
  /** The owner EOA that signed. */
  from: string;
  wallet: string;
  nonce: string;
  deadline: string;
  calls: readonly BatchCall[];
  signature: string;
}

export const relayerNotConfigured = () =>
  new AppError(
    503,
    'relayer_not_configured',
    'Deposit wallets are not available on this server: no Polymarket relayer credentials are configured',
    'Ask the operator to set POLYMARKET_BUILDER_API_KEY, POLYMARKET_BUILDER_SECRET and POLYMARKET_BUILDER_PASSPHRASE; meanwhile trade from your EOA (signature type 0).',
  );

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Relayer {
  constructor(
    private readonly http: VenueHttpClient,
    private readonly env: Pick<
      Env,
      'POLYMARKET_BUILDER_API_KEY' | 'POLYMARKET_BUILDER_SECRET' | 'POLYMARKET_BUILDER_PASSPHRASE'
    >,
  ) {}

  get configured(): boolean {
    return Boolean(
      this.env.POLYMARKET_BUILDER_API_KEY &&
      this.env.POLYMARKET_BUILDER_SECRET &&
      this.env.POLYMARKET_BUILDER_PASSPHRASE,
    );
  }

  private builderHeaders(method: string, path: string, body: unknown) {
    if (!this.configured) throw relayerNotConfigured();
    const timestamp = String(Math.floor(Date.now() / 1000));
    return {
      POLY_BUILDER_API_KEY: this.env.POLYMARKET_BUILDER_API_KEY!,
      POLY_BUILDER_PASSPHRASE: this.env.POLYMARKET_BUILDER_PASSPHRASE!,
      POLY_BUILDER_TIMESTAMP: timestamp,
      POLY_BUILDER_SIGNATURE: l2Signature(
        this.env.POLYMARKET_BUILDER_SECRET!,
        timestamp,
        method,
        path,
        JSON.stringify(body),
      ),
    };
  }

  private submit(body: Record<string, unknown>, endpoint: string) {
    // Not idempotent: a lost answer is not resent (the batch nonce makes a second execution fail,
    // but a second WALLET-CREATE or a duplicate in flight would still cost a relayer slot).
    return this.http.post('/submit', {
      endpoint,
      schema: SubmitAnswerSchema,
      body,
      headers: this.builderHeaders('POST', '/submit', body),
    });
  }

  /** `WALLET-CREATE`: deploys the owner's deposit wallet from the factory. */
  async createWallet(owner: string): Promise<string> {
    const answer = await this.submit(
      { type: 'WALLET-CREATE', from: owner, to: POLYGON_CONTRACTS.depositWalletFactory },
      'relayer.wallet-create',
    );
    return answer.transactionID;
  }

  /** `WALLET`: a batch the wallet's owner signed; the relayer executes it from the wallet. */
  async submitBatch(b: BatchSubmission): Promise<string> {
    const answer = await this.submit(
      {
        type: 'WALLET',
        from: b.from,
        to: POLYGON_CONTRACTS.depositWalletFactory,
        nonce: b.nonce,
        signature: b.signature,
        depositWalletParams: {
          depositWallet: b.wallet,
          deadline: b.deadline,
          calls: b.calls.map((c) => ({ target: c.target, value: c.value, data: c.data })),
        },
      },
      'relayer.wallet-batch',
    );
    return answer.transactionID;
  }

  async transaction(id: string): Promise<RelayerTransaction> {
    const answer = await this.http.get('/transaction', {
      endpoint: 'relayer.transaction',
      schema: TransactionAnswerSchema,
      query: { id },
    });
    const row = Array.isArray(answer) ? answer[0] : answer;
    if (!row) return { id, state: 'STATE_UNKNOWN', hash: null, error: null, outcome: 'pending' };
    return {
      id,
      state: row.state,
      hash: row.transactionHash ?? null,
      error: row.errorMsg ?? null,
      outcome: DONE.has(row.state) ? 'done' : FAILED.has(row.state) ? 'failed' : 'pending',
    };
  }

  /** Polls the transaction until it is final or `timeoutMs` passed (then `outcome: pending`). */
  async waitFor(id: string, timeoutMs: number, pollMs = 500): Promise<RelayerTransaction> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const tx = await this.transaction(id);
      if (tx.outcome !== 'pending' || Date.now() + pollMs > until) return tx;
      await sleep(pollMs);
    }
  }

  /** The next batch nonce of the owner's deposit wallet (`GET /nonce?address=<owner>&type=WALLET`). */
  async nonce(owner: string): Promise<bigint> {
    const answer = await this.http.get('/nonce', {
      endpoint: 'relayer.nonce',
      schema: NonceAnswerSchema,
      query: { address: owner, type: 'WALLET' },
    });
    return BigInt(answer.nonce);
  }

  /** Whether a deposit wallet is deployed at `wallet` (`GET /deployed?address=…&type=WALLET`). */
  async deployed(wallet: string): Promise<boolean> {
    const answer = await this.http.get('/deployed', {
      endpoint: 'relayer.deployed',
      schema: DeployedAnswerSchema,
      query: { address: wallet, type: 'WALLET' },
    });
    return answer.deployed;
  }
}
