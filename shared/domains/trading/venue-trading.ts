import type { Logger } from '../../infra/logger.js';
import type { Holdings, TradeShape } from './trade-result.js';
import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { Refusal } from '../refusal.js';
import type { VenueRegistry } from '../venues/venue-registry.js';
import type { MarketCache } from '../markets/market-cache.js';
import type { SettingsCache } from '../limits/settings-cache.js';
import type { TierCache } from '../users/tier-cache.js';
import { AppError } from '../../infra/errors.js';
import type { AgentRecord } from '../agents/agent.model.js';
import type { MarketRecord } from '../markets/market.model.js';
import type { VenueId } from '../venues/venue-id.js';
import { venueMoney, type VenueMoney } from '../venues/venue-conventions.js';
import type {
  SignedQuoteRequest,
  SignedQuoteResult,
  SignedSubmitRequest,
  SignerIdentityStatus,
} from './signed-order.schemas.js';
import type { Admission, TradeRecord } from './trade.model.js';
import type { PreparedTrade, TradeRequest, TradeResult } from './trade.schemas.js';
import type { SettingsOwner } from '../users/settings-owner.js';

type OrderType = NonNullable<TradeRequest['order_type']>;

/**
 * What the trading seam hands a venue of the process, at submit and in its quote, signed-submit,
 * signer and follow-up calls (the composition root's Deps has all of it).
 */
export type VenueTradingDeps = Pick<
  InfraDeps,
  'env' | 'log' | 'redis' | 'queues' | 'metrics' | 'invalidation' | 'clock'
> & {
  models: Models;
  venues: VenueRegistry;
  trading: TradingVenues;
  caches: MarketCache & SettingsCache & TierCache;
};

/** Where the venue's order stands: matched so far (cumulative) and whether it is still working. */
export interface OrderState {
  sharesMicro: number;
  amountMicro: number;
  /** `live`: resting on the book; `delayed`: queued by the venue; `done`: matched or cancelled for good. */
  working: 'live' | 'delayed' | 'done';
  /** The venue says the order was cancelled (by the owner, or a FAK/FOK remainder). */
  canceled: boolean;
}

/**
 * The chain's word on what a venue order matched, for venues whose matches settle after the match
 * (VenueTrading `settlement`): still settling, all settled, or some of it reverted on chain.
 */
export type Settlement =
  | { state: 'pending' }
  | { state: 'confirmed' }
  | {
      state: 'failed';
      /** The order's shares whose match the chain reverted (micro-shares; all of them, or part). */
      failedSharesMicro: number;
      /** What the venue says happened, for the agent (the trade's `failure_reason`). */
      reason: string;
    };

/** What a venue offers a trade: what the API checks, tells agents and routes on instead of its name. */
export interface VenueCapabilities {
  /**
   * `paper`: play money, any agent trades it; `real`: the owner's money, claimed agents only. It
   * must agree with the venue's money (venue-conventions.ts `venueMoney`), which the records and
   * reads below trading ask: `TradingVenues` refuses a venue whose two disagree.
   */
  money: VenueMoney['money'];
  /** Orders may stay open on the venue after the trade call (resting or asynchronous). */
  restingOrders: boolean;
  /** An open order can be cancelled on the venue. */
  cancellable: boolean;
  /** The order types the venue acts on (others are refused or warned about by its `warnings`). */
  orderTypes: readonly OrderType[];
  /**
   * The largest buy in micro-$SIM: a rule of the venue, not an account limit, so dry runs are held
   * to it too. Null when the venue has none.
   */
  maxBuyMicro: number | null;
  /** Where trading fees come from: none (sim), or the market's fee rate as the venue sets it. */
  fees: 'none' | 'market';
  /**
   * The service signs the venue's orders for wallets it holds the keys of (a managed or an agent
   * wallet), so it can trade a position held there on its own (a monitor's exit). False where every
   * order is signed by the client, and on sim (nothing is signed). Absent: false.
   */
  serviceSignsOrders?: boolean;
}

/** One read of a venue wallet's cash from its chain (VenueWalletCash.read). */
export interface WalletCashReading {
  /** Its cash in micro-units of the venue's dollar token (pUSD, USDC: 6 decimals each). */
  cashMicro: number;
  /** Whether the approvals the venue's contracts need are all set; null where the venue has none. */
  allowancesSet: boolean | null;
}

/**
 * Where a venue keeps the owner's cash in the owner's own wallet: which wallet (from our records,
 * so a newly linked wallet counts at once) and what it holds on the venue's chain now (the caller,
 * wallet-cash.ts, caches that per wallet and falls back when it throws).
 */
export interface VenueWalletCash {
  /** The wallet the owner trades with on the venue; null when there is none. */
  wallet(deps: VenueTradingDeps, owner: SettingsOwner): Promise<string | null>;
  read(deps: VenueTradingDeps, address: string): Promise<WalletCashReading>;
}

/** A trade's answer from the worker, or why it has none yet (its job tries again). */
export type TradeAnswer = { result: TradeResult } | { error: unknown };

/** A cancel's outcome for one order. */
export type CancelOutcome = { canceled: true } | { canceled: false; reason: string };

/**
 * Everything a venue does with a trade, behind one interface: the API submits through it, the
 * worker executes through it, the order sync and cancels reach open orders through it. Nothing
 * outside the venue's own folder branches on its name; `TradingVenues` looks it up by id.
 */
export interface VenueTrading {
  readonly venue: VenueId;
  readonly capabilities: VenueCapabilities;
  /** Warnings a request gets on this venue (e.g. an order type without effect there). */
  warnings(req: TradeRequest): string[];
  /** Takes a validated request from the API: quotes a dry run, or records, runs and answers a live trade. */
  submit(trade: VenueTrade): Promise<TradeResult>;
  /**
   * Runs a recorded trade in the worker, exactly once however often it is called: a first run, or a
   * resume after a crash (the trade is `executing`; the venue's records say what already happened).
   */
  execute(ctx: TradeExecutionContext, trade: TradeRecord, market: MarketRecord): Promise<TradeResult>;
  /**
   * Runs trades the worker claimed just now together (a group commit), answering each. Absent:
   * each runs alone through `execute`. A trade it leaves unanswered is resumed through `execute`.
   */
  executeClaimed?(ctx: TradeExecutionContext, trades: TradeRecord[]): Promise<Map<string, TradeAnswer>>;
  /**
   * The venue's word on an open order (for the `sync-venue-orders` job); null when it cannot say
   * now. Absent: the venue follows its open orders by other means (or has none).
   */
  orderState?(ctx: TradeExecutionContext, trade: TradeRecord): Promise<OrderState | null>;
  /**
   * Where the chain stands on a finished order's matches (the `sync-venue-orders` job follows every
   * filled trade with `venueOrder.settlement: pending` through it: venue-settlement.ts); null when
   * the venue cannot say now. Present: a match is answered `unconfirmed` until the chain confirms it,
   * and rolled back if the chain fails it. Absent: the venue's fills are final when reported.
   */
  settlement?(ctx: TradeExecutionContext, trade: TradeRecord): Promise<Settlement | null>;
  /** Cancels an open order on the venue; absent when `capabilities.cancellable` is false. */
  cancel?(ctx: TradeExecutionContext, trade: TradeRecord, orderId: string): Promise<CancelOutcome>;
  /**
   * One look at an open order the venue fills or expires by itself (the `follow-kalshi-order` job,
   * which polls again until the order is done). Absent: the venue's open orders are followed by
   * `orderState`, or it has none.
   */
  followOrder?(deps: VenueTradingDeps, tradeId: string, poll: number): Promise<{ status: string }>;
  /**
   * Venues whose orders the agent's own wallet signs (client-signed, signed-order.schemas.ts): the
   * unsigned order and its quote, then the signed copy relayed and recorded as a trade, and whether
   * a signing wallet passed the venue's identity check. Absent together: orders go through `submit`.
   */
  quote?(deps: VenueTradingDeps, agent: AgentRecord, req: SignedQuoteRequest): Promise<SignedQuoteResult>;
  submitSigned?(deps: VenueTradingDeps, agent: AgentRecord, req: SignedSubmitRequest): Promise<TradeResult>;
  signerStatus?(deps: VenueTradingDeps, wallet: string): Promise<SignerIdentityStatus>;
  /**
   * The legacy `execute: true` call (client-contract §4.4): an order's parameters for the caller to
   * sign and place, or a refusal; nothing is traded or recorded. Null when this market cannot be
   * prepared. Absent: the venue has no such call.
   */
  prepareOrder?(
    deps: VenueTradingDeps,
    market: MarketRecord,
    req: TradeRequest,
  ): Promise<PreparedTrade | null>;
  /** The cash in the owner's own wallet on the venue. Absent: the venue's money is not there (sim's $SIM). */
  readonly walletCash?: VenueWalletCash;
}

/** A venue that trades by client-signed orders: its members for them are there. */
export type ClientSignedVenue = VenueTrading &
  Required<Pick<VenueTrading, 'quote' | 'submitSigned' | 'signerStatus'>>;

const isClientSigned = (v: VenueTrading): v is ClientSignedVenue =>
  v.quote !== undefined && v.submitSigned !== undefined && v.signerStatus !== undefined;

/** The trading venues of this process, one per venue id; built once in the composition root. */
export class TradingVenues {
  private readonly byId = new Map<VenueId, VenueTrading>();

  constructor(venues: VenueTrading[]) {
    for (const v of venues) {
      const declared = venueMoney(v.venue).money;
      if (v.capabilities.money !== declared)
        throw new Error(
          `venue ${v.venue}: its trading is ${v.capabilities.money} money, its adapter ${declared}`,
        );
      this.byId.set(v.venue, v);
    }
  }

  /** The venue `id` trades through, or a 503 `venue_unavailable` when this service cannot trade there. */
  get(id: VenueId): VenueTrading {
    const venue = this.byId.get(id);
    if (!venue)
      throw new AppError(
        503,
        'venue_unavailable',
        `Trading on ${id} is not available on this service`,
        'Trade on venue "sim", or ask the operator which venues this deployment trades on (GET /api/admin/venues).',
      );
    return venue;
  }

  /**
   * The venue `id` when its orders are client-signed (its quote and submit endpoints), else the
   * same 503 `venue_unavailable` as `get`: this service cannot take signed orders for it.
   */
  clientSigned(id: VenueId): ClientSignedVenue {
    const venue = this.byId.get(id);
    if (venue && isClientSigned(venue)) return venue;
    throw new AppError(
      503,
      'venue_unavailable',
      `Client-signed orders on ${id} are not available on this service`,
      'Ask the operator which venues this deployment trades on (GET /api/admin/venues).',
    );
  }

  all(): VenueTrading[] {
    return [...this.byId.values()];
  }
}

/** What a venue's execution in the worker reaches of the process, beyond its context's own fields. */
export type ExecutionContextDeps = Pick<InfraDeps, 'env' | 'log' | 'queues' | 'metrics' | 'clock'> & {
  models: Models;
  venues: VenueRegistry;
  trading: TradingVenues;
  caches: SettingsCache;
};

/** What a worker needs to execute trades, built once per process (context.ts). */
export interface TradeExecutionContext {
  /** For real-venue orders: the venues, the owners' wallets and credentials. */
  deps: ExecutionContextDeps;
  models: Models;
  /** Where each trade goes by its venue: execution, order states and cancels. */
  venues: TradingVenues;
  log: Logger;
  now: () => Date;
  baseUrl: string;
  claimUrlFor: (code: string) => string;
  /**
   * The refusal of the owner's kill switch or the agent's halted automaton if either is on now (the
   * worker's second look, see runTrade), else null.
   */
  haltedBy: (t: { agentId: string; ownerKey?: string | null }) => Promise<Refusal | null>;
}

/** A validated trade request on its way to a venue. */
export interface VenueTrade {
  deps: VenueTradingDeps;
  agent: AgentRecord;
  req: TradeRequest;
  /** With the venue normalised and every warning so far. */
  shape: TradeShape;
  /** The agent's balance as the request found it; shares are read where the venue needs them. */
  holdings: Holdings;
  /**
   * The buy's safeguards already passed and counted by the caller (an atomic batch admits all its
   * legs before any runs: submit-batch.ts); the trade then carries this admission instead of
   * taking another. Absent: the trade is admitted on its own.
   */
  admitted?: Admission | null;
}
