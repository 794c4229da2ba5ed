import { LocalCache } from '../../infra/local-cache.js';
import { fromMicro } from '../money.js';
import type { AgentRecord } from '../agents/agent.model.js';
import { agentOwner, type SettingsOwner } from '../users/settings-owner.js';
import type { VenueId } from '../venues/venue-id.js';
import type { TradingVenues, VenueTradingDeps, WalletCashReading } from './venue-trading.js';

/**
 * The cash in the owner's wallets on the real venues (issue 26 item 2), for the portfolio, the
 * briefing and the settings. Read from each venue's chain through its `walletCash` seam, cached
 * per wallet and process for WALLET_CASH_CACHE_SECONDS (20 s): agents poll the portfolio and the
 * briefing, and a chain read per call would put the node's rate limit on our API. When a read
 * fails the last value read (up to LAST_KNOWN_MS old) is answered with its age and a warning;
 * without one the balance is null with a warning. Never 0: an agent reads 0 as "no money" and
 * stops trading (client-contract §6.2: null is "balance unavailable").
 */

const LAST_KNOWN_MS = 24 * 3600_000;
const ENTRIES = 10_000;

interface Read extends WalletCashReading {
  address: string;
  checkedAt: string;
}

/** One venue wallet's cash as the API shows it. */
export interface WalletCash {
  venue: VenueId;
  address: string | null;
  /** In the venue's dollars; null when the chain cannot be read and nothing was read before. */
  balance: number | null;
  allowancesSet: boolean | null;
  /** When `balance` was read from the chain. */
  checkedAt: string | null;
  /** `balance` is the last value read, not a read of now (the chain is unreachable). */
  stale: boolean;
  warning: string | null;
}

// One pair of caches per process: keyed by its trading venues, which the composition root builds once.
const fresh = new WeakMap<TradingVenues, LocalCache<Read>>();
const lastKnown = new WeakMap<TradingVenues, LocalCache<Read>>();
const cacheOf = <V>(map: WeakMap<TradingVenues, LocalCache<V>>, trading: TradingVenues, ms: () => number) => {
  let cache = map.get(trading);
  if (!cache) map.set(trading, (cache = new LocalCache<V>(ENTRIES, ms)));
  return cache;
};

/**
 * The owner's wallet cash on one venue; null when the venue keeps no cash in the owner's wallets,
 * or the owner has no wallet there. Cached per wallet: a newly linked wallet is read at once.
 */
async function venueCash(
  deps: VenueTradingDeps,
  owner: SettingsOwner,
  venue: VenueId,
): Promise<WalletCash | null> {
  const seam = deps.trading.get(venue).walletCash;
  if (!seam) return null;
  const address = await seam.wallet(deps, owner);
  if (!address) return null;
  const key = `${venue}:${address}`;
  const last = cacheOf(lastKnown, deps.trading, () => LAST_KNOWN_MS);
  try {
    const freshMs = () => deps.env.WALLET_CASH_CACHE_SECONDS * 1000;
    const got = await cacheOf(fresh, deps.trading, freshMs).getOrLoad(key, async () => {
      const r = { ...(await seam.read(deps, address)), address, checkedAt: deps.clock().toISOString() };
      last.set(key, r);
      return r;
    });
    return { venue, ...view(got), stale: false, warning: null };
  } catch (err) {
    const known = last.get(key);
    const why = err instanceof Error ? err.message : String(err);
    deps.log.warn({ venue, wallet: address, err: why }, 'wallet cash: chain read failed');
    if (known)
      return {
        venue,
        ...view(known),
        stale: true,
        warning: `The ${venue} wallet's balance could not be read now (${why}): this is the balance read at ${known.checkedAt}.`,
      };
    return {
      venue,
      address,
      balance: null,
      allowancesSet: null,
      checkedAt: null,
      stale: true,
      warning: `The ${venue} wallet's balance could not be read now (${why}): it is unknown, not 0. Try again shortly.`,
    };
  }
}

const view = (r: Read) => ({
  address: r.address,
  balance: fromMicro(r.cashMicro),
  allowancesSet: r.allowancesSet,
  checkedAt: r.checkedAt,
});

/** The owner's wallet cash on each venue of `venues` that keeps it in the owner's wallet (all when absent). */
export async function walletCash(
  deps: VenueTradingDeps,
  owner: SettingsOwner,
  venues?: readonly VenueId[],
): Promise<Map<VenueId, WalletCash>> {
  const ids = (venues ?? deps.trading.all().map((v) => v.venue)).filter((v) =>
    deps.trading.all().some((t) => t.venue === v && t.walletCash),
  );
  const answers = await Promise.all(ids.map((v) => venueCash(deps, owner, v)));
  return new Map(answers.filter((a): a is WalletCash => a !== null).map((a) => [a.venue, a]));
}

/**
 * The settings' wallet fields (client-contract §3.2): `<venue>_usdc_balance` with its
 * `<venue>_balance_checked_at` for every venue with a wallet cash seam (null when the owner has no
 * wallet there), `<venue>_allowances_set` where the venue has approvals, and the read's warnings.
 */
export function walletCashSettings(trading: TradingVenues, cash: Map<VenueId, WalletCash>) {
  const fields: Record<string, number | boolean | string | string[] | null> = {};
  for (const v of trading.all().filter((t) => t.walletCash)) {
    const c = cash.get(v.venue);
    fields[`${v.venue}_usdc_balance`] = c?.balance ?? null;
    fields[`${v.venue}_balance_checked_at`] = c?.checkedAt ?? null;
    if (typeof c?.allowancesSet === 'boolean') fields[`${v.venue}_allowances_set`] = c.allowancesSet;
  }
  fields.balance_warnings = [...cash.values()].flatMap((c) => (c.warning ? [c.warning] : []));
  return fields;
}

/** What a venue bucket of the portfolio and briefing shows of the wallet (0 without a wallet there: nothing to trade with). */
export const bucketCash = (c: WalletCash | undefined) => ({
  balance: c ? c.balance : 0,
  balance_checked_at: c?.checkedAt ?? null,
  balance_stale: c?.stale ?? false,
  wallet_address: c?.address ?? null,
  balance_warning: c?.warning ?? null,
});

/** The cash of the agent's owner's wallets (an unclaimed agent has none: the venues answer null). */
export async function agentWalletCash(
  deps: VenueTradingDeps,
  agent: Pick<AgentRecord, '_id' | 'claimedBy' | 'status'>,
  venues?: readonly VenueId[],
) {
  return walletCash(deps, await agentOwner(deps, agent), venues);
}
