import type { EndpointSpec } from '../../../api/endpoints/endpoint.js';
import type { EndpointName } from '../../../api/endpoints/index.js';
import { ACCEPTED, bodyProperties } from './route-table.js';
import type { VictimValues } from './victim.js';
import type { World } from './world.js';

/**
 * The cross-user pass (API1 in owasp.test.ts): who attacks, with which of the victim's values, and
 * what the pass knows it cannot reach or may see.
 */

/** Another tenant: A's agent key or user token, an agent its human (B) released, or nobody. */
export type Attacker = 'agent' | 'user' | 'released agent' | 'anonymous';

/** Every other-tenant credential a route's auth lets in. */
export function attackersOf(spec: EndpointSpec): Attacker[] {
  if (spec.auth === 'none' || spec.auth === 'operator-optional') return ['anonymous'];
  const accepted = ACCEPTED[spec.auth];
  const out: Attacker[] = [];
  if (accepted.includes('none')) out.push('anonymous');
  if (accepted.includes('agent')) out.push('agent', 'released agent');
  if (accepted.includes('user')) out.push('user');
  return out;
}

export function attackerCredential(world: World, attacker: Attacker): string | undefined {
  if (attacker === 'agent') return world.a.agent.api_key;
  if (attacker === 'user') return world.a.userToken;
  if (attacker === 'released agent') return world.released.api_key;
  return undefined;
}

type MarketKey = 'market_id' | 'polymarket_market_id' | 'kalshi_market_id';
type Venue = 'sim' | 'polymarket' | 'kalshi';

/**
 * Routes that take the attacker's own state away (its linked wallet) run after the rest of the
 * pass, so that every other route meets an attacker that has what a client has.
 */
const RUN_LAST: EndpointName[] = ['unlinkWallet'];

export const passOrder = <T extends [EndpointName, EndpointSpec]>(routes: T[]): T[] => [
  ...routes.filter(([name]) => !RUN_LAST.includes(name)),
  ...routes.filter(([name]) => RUN_LAST.includes(name)),
];

/**
 * Whose id an `agent_id` names (B's, or the unclaimed C's), and which of B's markets a `market_id`
 * names (with its venue wherever the route takes a `venue`).
 */
export interface Variant {
  label: string;
  victim: 'B' | 'C';
  market: MarketKey;
  venue: Venue;
}

const MARKETS: [MarketKey, Venue][] = [
  ['market_id', 'sim'],
  ['polymarket_market_id', 'polymarket'],
  ['kalshi_market_id', 'kalshi'],
];

/** Every parameter and top-level field name the route takes. */
const namesOf = (spec: EndpointSpec) => [
  ...Object.keys(spec.params?.shape ?? {}),
  ...Object.keys(spec.query?.shape ?? {}),
  ...bodyProperties(spec.body),
];

/** The victims and markets a route is tried with: each of B's markets where it takes a market, C where it takes an agent. */
export function variantsOf(spec: EndpointSpec): Variant[] {
  const names = namesOf(spec);
  const victims = names.includes('agent_id') ? (['B', 'C'] as const) : (['B'] as const);
  const perVenue = names.includes('market_id') || names.includes('venue');
  const markets = perVenue ? MARKETS : MARKETS.slice(0, 1);
  return victims.flatMap((victim) =>
    markets.map(([market, venue]) => ({
      victim,
      market,
      venue,
      label: `${victim === 'B' ? 'another user’s values' : 'an unclaimed agent’s id'}${perVenue ? ` on ${venue}` : ''}`,
    })),
  );
}

/** Field and parameter names that take one of the victim's public values (not ids it owns), by which. */
const AIMED: Record<string, keyof VictimValues['aimed']> = {
  slug: 'slug',
  skill_slug: 'slug',
  address: 'address',
  wallet_address: 'address',
  poly_address: 'address',
  deposit_wallet_address: 'address',
  wallet: 'solana_address',
  solana_wallet_address: 'solana_address',
  bot_solana_wallet: 'solana_address',
  tx_hash: 'tx_hash',
  polymarket_url: 'polymarket_url',
  url: 'polymarket_url',
  kalshi_url: 'kalshi_ticker',
};

/** The victim's value for a parameter or field, and whether it is an id the victim owns. */
export function victimValue(
  world: World,
  name: string,
  variant: Variant,
): { value: string; owned: boolean } | undefined {
  if (name === 'agent_id')
    return { value: variant.victim === 'C' ? world.c.agent_id : world.victim.owned.agent_id!, owned: true };
  const owned = world.victim.owned[name];
  if (owned !== undefined) return { value: owned, owned: true };
  if (name === 'market_id') return { value: world.victim.aimed[variant.market]!, owned: false };
  if (name === 'venue') return { value: variant.venue, owned: false };
  const aimed = AIMED[name];
  return aimed ? { value: world.victim.aimed[aimed]!, owned: false } : undefined;
}

/**
 * Fingerprints a route shows to anybody by design, by label: what the public boards and catalogue
 * publish of every agent. Anything else of the victim's in another tenant's answer is a leak.
 */
export const PUBLIC_EXPOSURE: Partial<Record<EndpointName, string[]>> = {
  // The public boards rank every agent by id and name.
  sdkAgentsLeaderboard: ['Agent._id', 'Agent.name'],
  allLeaderboards: ['Agent._id', 'Agent.name'],
  venueLeaderboard: ['Agent._id', 'Agent.name'],
  // The public chart lists each trade of the market (side, amount, shares), without who made it.
  publicMarketHistory: ['sim_buy_amount', 'sim_buy_shares'],
  // A wallet's holdings are public chain data: the venue's data API answers them for any address.
  walletPositions: ['polymarket_open_shares'],
};

/**
 * Routes no call of the pass reaches (each answered before its handler could read the victim's
 * data, e.g. for a signature or a state the attacker cannot produce), and why. The pass asserts
 * this list: a route that becomes unreachable, or reachable, must be noticed here.
 */
export const UNREACHED: Partial<Record<EndpointName, string>> = {
  rotateClaimCode: 'acts on the caller’s own unclaimed agent alone; the attacker’s is claimed (409)',
  broadcastTx: 'needs a transaction signed by the attacker’s own wallet (400 malformed_tx)',
  submitDepositWalletApprovals: 'needs a batch the attacker prepared and signed (409 batch_not_prepared)',
  submitWrapOnDepositWallet: 'needs a batch the attacker prepared and signed (409 batch_not_prepared)',
  requestTape: 'needs an ISO window; tapes are public venue prints, nobody’s (422 invalid_window)',
  downloadTapeFile: 'needs a tape key and its signed URL (422)',
  replayCandles: 'needs a window (422); candles are public exchange data, nobody’s',
  x402Import: 'pay-per-import is not offered by this deployment (402)',
};

/**
 * What the victim's own reads show of its records (fingerprint kinds: a model, or a planted value):
 * the pass looks for each of them in other tenants' answers, so each must be there to be missed.
 */
export const VISIBLE_TO_VICTIM: string[] = [
  // Records, by their ids and distinctive strings (addresses, URLs, hashes, notes).
  'Agent',
  'AgentWallet',
  'AutomatonCycle',
  'PriceAlert',
  'ReactorConfig',
  'ReactorReaction',
  'ReactorSignal',
  'ResearchExperiment',
  'Skill',
  'Trade',
  'TradingSettings',
  'TxBroadcast',
  'Wallet',
  'Webhook',
  'redemption',
  // Values: settings, positions, monitors, alerts, automaton, research.
  'alert_threshold',
  'automaton_budget_usd',
  'bandit_ewm_roc',
  'default_stop_loss_pct',
  'default_take_profit_pct',
  'experiment_metric_value',
  'max_position_usd',
  'max_trades_per_day',
  'monitor_stop_loss_pct',
  'monitor_take_profit_pct',
  'polymarket_open_shares',
  'sdk_daily_limit',
  'sdk_max_trade_amount',
  'sim_buy_amount',
  'sim_buy_shares',
];
