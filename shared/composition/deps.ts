import type { InfraDeps } from '../infra/infra-deps.js';
import type { VenueRegistry } from '../domains/venues/venue-registry.js';
import type { TradingVenues } from '../domains/trading/venue-trading.js';
import type { PolygonRpc } from '../domains/venues/polymarket/onchain/polygon-rpc.js';
import type { Relayer } from '../domains/venues/polymarket/onchain/deposit-wallet/relayer.js';
import type { Models } from '../domains/models.js';
import type { ResolveHost } from '../domains/webhooks/url-guard.js';
import type { WalletRegistrations } from '../domains/venues/venue-wallets.js';
import type { WalletCredentials } from '../domains/wallets/wallet-credentials.js';
import type { VenueModels } from './venue-models.js';
import type { AgentKeyCache } from '../domains/agents/agent-key-cache.js';
import type { TierCache } from '../domains/users/tier-cache.js';
import type { SettingsCache } from '../domains/limits/settings-cache.js';
import type { MarketCache } from '../domains/markets/market-cache.js';
import type { BinanceKlines } from '../domains/candles/binance-klines.js';
import type { ReactorWatcherCache } from '../domains/reactor/watcher-index.js';

/*
 * The types of the composition root: what a process hands its roles and domain functions. Built by
 * create-deps.ts, kept apart from it so that importing the type does not import every venue's code.
 */
/**
 * In-process caches of what the API reads on every request, so that a request costs no database
 * round trip for them; each declared by the domain that reads it. Every change drops them on every
 * process through `invalidation`; LOCAL_CACHE_SECONDS (DEGRADED_MAX_AGE_MS while the channel is
 * down) bounds what a lost message could leave behind.
 */
export type LocalCaches = AgentKeyCache & TierCache & SettingsCache & MarketCache & ReactorWatcherCache;

/**
 * Everything a role needs, built once per process (the composition root) and passed down
 * explicitly. Domain functions never take the whole of it: each declares the narrow part it uses
 * (its infrastructure handles from InfraDeps, and the domain parts), which this satisfies.
 */
export interface Deps extends InfraDeps {
  /** The domains' models and the venues' own (createVenueModels). */
  models: Models & VenueModels;
  /** One adapter per registered venue, built-in or passed in: the only way to a venue's market data. */
  venues: VenueRegistry;
  /** One trading per registered venue, under its adapter's id: the only way a trade reaches a venue. */
  trading: TradingVenues;
  /** Polygon JSON-RPC reads (allowances, the authenticated RPC proxy); writes go through the relay. */
  polygon: PolygonRpc;
  /** Polymarket's relayer: deploys deposit wallets and executes the batches their owners sign. */
  relayer: Relayer;
  /** The candle source (Binance public klines): read by the candle recorder only. */
  candles: BinanceKlines;
  caches: LocalCaches;
  /** The venues' check of a wallet an account registers in its settings (Kalshi's ownership proofs). */
  walletRegistrations: WalletRegistrations;
  /** The venue's API credentials of a linked wallet (Polymarket's CLOB keys). */
  walletCredentials: WalletCredentials;
  /** Name resolution for the SSRF guard of outbound URLs (webhooks); the system resolver when unset. */
  resolveHost?: ResolveHost;
}
