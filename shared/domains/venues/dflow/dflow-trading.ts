import type { InfraDeps } from '../../../infra/infra-deps.js';
import { z } from 'zod';
import { VenueHttpClient, VenueHttpError } from '../../../infra/http/venue-http-client.js';
import { createVenueMetrics } from '../../../infra/http/venue-metrics.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type DflowTradingDeps = Pick<InfraDeps, 'env' | 'log' | 'metrics'>;

/**
 * The Kalshi trading side (kalshi.md §2–3): DFlow's metadata (ticker → outcome mints), trade API
 * (`/order` builds the unsigned transaction, `/order-status` follows the async order), Proof (KYC)
 * and the Solana JSON-RPC the signed transaction is sent to. Each host is its own VenueHttpClient
 * (timeouts, retries, circuit breaker, metrics, 503 `venue_unavailable`), one set per process.
 */

/** Solana mainnet USDC, the settlement rail the service trades on (6 decimals). */
export const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

const Prob = z.string().nullable().optional();
const DflowMarketSchema = z.looseObject({
  ticker: z.string(),
  status: z.string(),
  result: z.string().nullable().optional(),
  yesBid: Prob,
  yesAsk: Prob,
  noBid: Prob,
  noAsk: Prob,
  accounts: z.record(z.string(), z.looseObject({ yesMint: z.string(), noMint: z.string() })),
});
export type DflowMarket = z.output<typeof DflowMarketSchema>;

const OrderSchema = z.looseObject({
  inputMint: z.string(),
  inAmount: z.string(),
  outputMint: z.string(),
  outAmount: z.string(),
  transaction: z.string().optional(),
  lastValidBlockHeight: z.number().optional(),
});
export type DflowOrder = z.output<typeof OrderSchema>;

const OrderStatusSchema = z.looseObject({
  status: z.enum(['pending', 'open', 'pendingClose', 'closed', 'expired', 'failed']),
  inAmount: z.string().optional(),
  outAmount: z.string().optional(),
  fills: z.array(z.looseObject({ inAmount: z.string(), outAmount: z.string() })).optional(),
  reverts: z.array(z.looseObject({ mint: z.string(), amount: z.string() })).optional(),
});
export type DflowOrderStatus = z.output<typeof OrderStatusSchema>;

const RpcAnswerSchema = z.object({
  result: z.unknown().optional(),
  error: z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() }).optional(),
});

/** `getTokenAccountsByOwner` with `jsonParsed`: what the balance read uses of each account. */
const TokenAccountsSchema = z.object({
  value: z.array(
    z.looseObject({
      account: z.looseObject({
        data: z.looseObject({
          parsed: z.looseObject({
            info: z.looseObject({ tokenAmount: z.looseObject({ amount: z.string().regex(/^\d+$/) }) }),
          }),
        }),
      }),
    }),
  ),
});

/** A refusal of DFlow's trade API: HTTP 400 `{code, msg, details?}` (kalshi.md §2.4). */
export interface DflowRefusal {
  code: string;
  msg: string;
  deepLink: string | null;
}

/** The `{code, msg}` body of a 4xx from DFlow, or null for any other failure. */
export function dflowRefusal(err: unknown): DflowRefusal | null {
  if (!(err instanceof VenueHttpError) || err.kind !== 'client') return null;
  const json = err.message.slice(err.message.indexOf('{'));
  try {
    const body = JSON.parse(json) as { code?: unknown; msg?: unknown; details?: { deepLink?: unknown } };
    if (typeof body.code !== 'string') return null;
    const link = body.details?.deepLink;
    return { code: body.code, msg: String(body.msg ?? ''), deepLink: typeof link === 'string' ? link : null };
  } catch {
    return null;
  }
}

/** A JSON-RPC error answer of the Solana node (the node answered: the call was refused). */
export class SolanaRpcError extends Error {
  constructor(
    readonly code: number,
    readonly rpcMessage: string,
  ) {
    super(`solana: ${rpcMessage} (${code})`);
    this.name = 'SolanaRpcError';
  }
}

export interface OrderRequest {
  inputMint: string;
  outputMint: string;
  /** Atomic units of the input mint. */
  amount: bigint;
  /** Without it DFlow only prices: no transaction, no KYC check. */
  userPublicKey?: string;
}

export class DflowTrading {
  private rpcId = 1;

  constructor(
    private readonly metadata: VenueHttpClient,
    private readonly trade: VenueHttpClient,
    private readonly proof: VenueHttpClient,
    private readonly rpc: VenueHttpClient,
  ) {}

  /** The DFlow market of a Kalshi ticker (with its outcome mints per rail), or null if DFlow has none. */
  market(ticker: string): Promise<DflowMarket | null> {
    return this.metadata.get(`/api/v1/market/${encodeURIComponent(ticker)}`, {
      endpoint: 'dflow.market',
      schema: DflowMarketSchema,
      notFoundAs: 'null',
    });
  }

  /** `GET /order`: a price and, for `userPublicKey`, the unsigned transaction. 4xx: see dflowRefusal. */
  order(req: OrderRequest): Promise<DflowOrder> {
    return this.trade.get('/order', {
      endpoint: 'dflow.order',
      schema: OrderSchema,
      query: {
        inputMint: req.inputMint,
        outputMint: req.outputMint,
        amount: req.amount.toString(),
        ...(req.userPublicKey ? { userPublicKey: req.userPublicKey } : {}),
      },
    });
  }

  /** Where an order stands, by its transaction's signature; null when DFlow never saw it. */
  orderStatus(signature: string, lastValidBlockHeight: number | null): Promise<DflowOrderStatus | null> {
    return this.trade.get('/order-status', {
      endpoint: 'dflow.order_status',
      schema: OrderStatusSchema,
      query: {
        signature,
        ...(lastValidBlockHeight === null ? {} : { lastValidBlockHeight }),
      },
      notFoundAs: 'null',
    });
  }

  /** DFlow Proof: whether the wallet passed KYC. */
  async verified(address: string): Promise<boolean> {
    const answer = await this.proof.get(`/verify/${encodeURIComponent(address)}`, {
      endpoint: 'proof.verify',
      schema: z.looseObject({ verified: z.boolean() }),
    });
    return answer.verified;
  }

  /**
   * One JSON-RPC call; a node's error answer throws SolanaRpcError. Sent as idempotent: the only
   * write is `sendTransaction`, and a signed transaction sent twice lands once (its signature is its id).
   */
  async call(method: string, params: readonly unknown[]): Promise<unknown> {
    const answer = await this.rpc.post('/', {
      endpoint: `rpc.${method}`,
      schema: RpcAnswerSchema,
      body: { jsonrpc: '2.0', id: this.rpcId++, method, params },
      idempotent: true,
    });
    if (answer.error) throw new SolanaRpcError(answer.error.code, answer.error.message);
    return answer.result;
  }

  /** `sendTransaction` with preflight; the base58 signature the node took it under. */
  async send(base64: string): Promise<string> {
    const result = await this.call('sendTransaction', [
      base64,
      { encoding: 'base64', skipPreflight: false, preflightCommitment: 'confirmed' },
    ]);
    return String(result);
  }

  /** The wallet's USDC token accounts, parsed (kalshi.md §3.4). */
  private async usdcAccounts(owner: string) {
    const result = await this.call('getTokenAccountsByOwner', [
      owner,
      { mint: USDC_MINT },
      { encoding: 'jsonParsed', commitment: 'confirmed' },
    ]);
    return TokenAccountsSchema.parse(result ?? { value: [] }).value;
  }

  /** Whether the wallet has a USDC token account (kalshi.md §3.4): buys debit it. */
  async hasUsdcAccount(owner: string): Promise<boolean> {
    return (await this.usdcAccounts(owner)).length > 0;
  }

  /** The wallet's USDC in base units (6 decimals: micro-dollars), over all its USDC token accounts. */
  async usdcBalance(owner: string): Promise<bigint> {
    const accounts = await this.usdcAccounts(owner);
    return accounts.reduce((s, a) => s + BigInt(a.account.data.parsed.info.tokenAmount.amount), 0n);
  }
}

const byDeps = new WeakMap<object, DflowTrading>();

/** The process's DFlow/Solana clients, made on first use from the configured URLs. */
export function dflowTrading(deps: Pick<DflowTradingDeps, 'env' | 'metrics' | 'log'>): DflowTrading {
  const known = byDeps.get(deps.env);
  if (known) return known;
  const { env } = deps;
  const metrics = createVenueMetrics(deps.metrics.registry);
  const client = (venue: string, baseUrl: string, headers?: Record<string, string>) =>
    new VenueHttpClient({
      venue,
      baseUrl,
      timeoutMs: env.VENUE_TIMEOUT_MS,
      retries: env.VENUE_RETRIES,
      breaker: { failureThreshold: env.VENUE_BREAKER_FAILURES, cooldownMs: env.VENUE_BREAKER_COOLDOWN_MS },
      metrics,
      log: deps.log.child({ component: 'venue', venue }),
      ...(headers ? { headers } : {}),
    });
  const key = env.DFLOW_API_KEY ? { 'x-api-key': env.DFLOW_API_KEY } : undefined;
  const made = new DflowTrading(
    client('dflow-metadata', env.DFLOW_METADATA_API_URL, key),
    client('dflow', env.DFLOW_TRADE_API_URL, key),
    client('dflow-proof', env.DFLOW_PROOF_API_URL),
    client('solana', env.SOLANA_RPC_URL),
  );
  byDeps.set(deps.env, made);
  return made;
}
