import { getAddress } from 'ethers';
import { VenueHttpError } from '../../../../infra/http/venue-http-client.js';
import { LocalCache } from '../../../../infra/local-cache.js';
import type { AppError } from '../../../../infra/errors.js';
import { venueUnavailable } from '../../venue-unavailable.js';
import { REQUIRED_APPROVALS, approvalTransactions, type UnsignedTx } from './approval-transactions.js';
import { PolygonRpcError, type PolygonRpc } from './polygon-rpc.js';

/**
 * `GET /api/polymarket/allowances/{address}` (client-contract §8.3): which of the approvals a
 * wallet needs for CLOB V2 are set on-chain. Clients call it before every external trade, so a
 * complete answer (`all_set`) is cached per address for a short while; `no_cache=1` reads the chain
 * again (and refreshes the cache).
 *
 * An incomplete answer is never cached: a wallet missing approvals is one about to set them, and
 * the official client's `set_approvals()` starts with a `no_cache=1` read (all missing), relays
 * its twelve approvals and waits for them to be mined, after which its owner's plain
 * `check_approvals()` must see them, not the answer read before they were sent. Reading such a
 * wallet every time costs what `no_cache=1` already lets any caller ask for.
 */

const CACHE_MS = 30_000;
const CACHE_ENTRIES = 10_000;

interface ChainAllowances {
  allowances: Readonly<Record<string, boolean>>;
  checkedAt: string;
}

// One cache per RPC client, i.e. per process (Deps builds one client).
const caches = new WeakMap<PolygonRpc, LocalCache<ChainAllowances>>();
const cacheOf = (rpc: PolygonRpc) => {
  let cache = caches.get(rpc);
  if (!cache) caches.set(rpc, (cache = new LocalCache(CACHE_ENTRIES, () => CACHE_MS)));
  return cache;
};

async function readChain(rpc: PolygonRpc, owner: string, now: () => Date): Promise<ChainAllowances> {
  // An ERC-20 allowance counts as set when it is non-zero: the official clients approve max uint256
  // once, and a partly spent allowance still lets the CLOB match (it checks the amount per order).
  const values = await Promise.all(
    REQUIRED_APPROVALS.map((a) =>
      a.token === 'ctf'
        ? rpc.isApprovedForAll(a.contract, owner, a.spender)
        : rpc.allowance(a.contract, owner, a.spender).then((n) => n > 0n),
    ),
  );
  const allowances = Object.fromEntries(REQUIRED_APPROVALS.map((a, i) => [a.key, values[i]!]));
  return Object.freeze({ allowances: Object.freeze(allowances), checkedAt: now().toISOString() });
}

/** A node that cannot be reached, or answers a view call with an error, is Polygon being unavailable. */
function polygonUnavailable(err: unknown): AppError | unknown {
  if (err instanceof VenueHttpError) return venueUnavailable(err);
  if (err instanceof PolygonRpcError)
    return venueUnavailable(
      new VenueHttpError({
        kind: 'http',
        venue: 'polygon',
        endpoint: `rpc.${err.method}`,
        message: err.message,
        retryable: true,
        cause: err,
      }),
    );
  return err;
}

export interface AllowancesAnswer {
  address: string;
  all_set: boolean;
  allowances: Record<string, boolean>;
  missing: string[];
  checked_at: string;
  transactions?: UnsignedTx[];
}

export async function readAllowances(
  deps: { polygon: PolygonRpc; clock: () => Date },
  address: string,
  opts: { noCache: boolean; includeTxParams: boolean },
): Promise<AllowancesAnswer> {
  const owner = getAddress(address);
  const key = owner.toLowerCase();
  const cache = cacheOf(deps.polygon);
  let chain = opts.noCache ? undefined : cache.get(key);
  if (!chain) {
    try {
      chain = await readChain(deps.polygon, owner, deps.clock);
    } catch (err) {
      throw polygonUnavailable(err);
    }
    // Only a complete answer is kept (see above); an incomplete one also drops an older complete one.
    if (Object.values(chain.allowances).every(Boolean)) cache.set(key, chain);
    else cache.delete(key);
  }
  const { allowances, checkedAt } = chain;
  const missing = Object.keys(allowances).filter((k) => !allowances[k]);
  return {
    address: owner,
    all_set: missing.length === 0,
    allowances: { ...allowances },
    missing,
    checked_at: checkedAt,
    ...(opts.includeTxParams ? { transactions: approvalTransactions(owner, missing) } : {}),
  };
}
