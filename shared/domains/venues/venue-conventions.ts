import { getAddress } from 'ethers';
import {
  isExternalVenue,
  venueIds,
  type BuiltInVenueId,
  type ExternalVenueId,
  type VenueId,
} from './venue-id.js';

/**
 * How each external venue spells what this service stores of it: the case of its market ids, the
 * chain its wallets live on, and whether its markets carry a neg-risk flag. Records (markets,
 * positions) store and compare by these without naming a venue; a new venue adds one entry, and
 * the compiler asks for it.
 */
/**
 * The case a venue's market ids are stored and looked up in: condition ids are hex (any case on
 * input, stored lower), tickers upper case; `preserve` keeps ids whose case tells them apart (a
 * Manifold-like venue's mixed-case ids) as the venue spells them.
 */
export type ExternalIdCase = 'lower' | 'upper' | 'preserve';

interface VenueConventions {
  /** The case external ids are stored and looked up in. */
  externalIdCase: ExternalIdCase;
  /**
   * The chain of the venue's wallets: EVM addresses are compared in lower case and shown
   * checksummed (one address, two spellings); Solana's base58 addresses are case-sensitive, and so
   * is any other venue's wallet id.
   */
  wallets: 'evm' | 'solana' | 'other';
  /** The field of a signed order (as recorded on the trade) that names the wallet its fills land in. */
  signedOrderWallet: 'maker' | 'wallet';
  /** The venue's markets carry a neg-risk flag worth storing (a multi-outcome event's exchange). */
  negRisk: boolean;
}

const CONVENTIONS: Record<BuiltInVenueId & ExternalVenueId, VenueConventions> = {
  polymarket: { externalIdCase: 'lower', wallets: 'evm', signedOrderWallet: 'maker', negRisk: true },
  kalshi: { externalIdCase: 'upper', wallets: 'solana', signedOrderWallet: 'wallet', negRisk: false },
};
/** A venue registered past the built-in ones: ids in lower case, wallets as given, no neg-risk. */
const REGISTERED_VENUE: VenueConventions = {
  externalIdCase: 'lower',
  wallets: 'other',
  signedOrderWallet: 'wallet',
  negRisk: false,
};

const declaredIdCase = new Map<string, ExternalIdCase>();

/** Records the id case a registered venue declares (its adapter's `externalIdCase`: VenueRegistry). */
export function declareExternalIdCase(venue: ExternalVenueId, idCase: ExternalIdCase): void {
  if (venue in CONVENTIONS) throw new Error(`venue ${venue} is built in: its id case is declared here`);
  declaredIdCase.set(venue, idCase);
}

const external = (venue: ExternalVenueId): VenueConventions => {
  const declared = declaredIdCase.get(venue);
  const conventions = (CONVENTIONS as Record<string, VenueConventions>)[venue] ?? REGISTERED_VENUE;
  return declared ? { ...conventions, externalIdCase: declared } : conventions;
};

const CASED: Record<ExternalIdCase, (id: string) => string> = {
  lower: (id) => id.toLowerCase(),
  upper: (id) => id.toUpperCase(),
  preserve: (id) => id,
};
const conventionsOf = (venue: VenueId): VenueConventions | null =>
  isExternalVenue(venue) ? external(venue) : null;

/**
 * Stored ids and the ids a lookup asks for go through here, in the venue's id case, so both spell
 * a market the same way.
 */
export const normalizeExternalId = (venue: ExternalVenueId, id: string) =>
  CASED[external(venue).externalIdCase](id);

/** Whether the venue's markets store their neg-risk flag (null is stored otherwise). */
export const storesNegRisk = (venue: ExternalVenueId) => external(venue).negRisk;

/** The form a wallet address of `venue` is stored and compared in (EVM lower case, others as given). */
export const walletKey = (venue: VenueId, address: string) =>
  conventionsOf(venue)?.wallets === 'evm' ? address.toLowerCase() : address;

/** A stored wallet address in its usual spelling: EVM checksummed, others as stored. */
export const walletDisplay = (venue: VenueId, address: string) =>
  conventionsOf(venue)?.wallets === 'evm' ? getAddress(address) : address;

/** The field of `venue`'s signed orders naming the wallet that receives the fills; null on sim. */
export const signedOrderWalletField = (venue: VenueId) => conventionsOf(venue)?.signedOrderWallet ?? null;

/**
 * What a venue's money is and how answers name it: whether trading there needs an owner's real
 * money (a claimed agent, the real-trading switch, the real-money caps), and its currency. Every
 * paper/real decision and every currency label outside the venues reads it here.
 */
export interface VenueMoney {
  /** `paper`: play money, traded by any agent; `real`: the owner's money, for claimed agents only. */
  money: 'paper' | 'real';
  /** The name of the venue's money, as its board shows P&L in it ($SIM, pUSD). */
  currency: string;
  /**
   * The unit positions and P&L are labelled in: play money by its own name; dollars (pUSD, USDC)
   * all as `USDC`, the label the clients read (client-contract §6.1).
   */
  unit: string;
}

const MONEY: Record<BuiltInVenueId, VenueMoney> = {
  sim: { money: 'paper', currency: '$SIM', unit: '$SIM' },
  polymarket: { money: 'real', currency: 'pUSD', unit: 'USDC' },
  kalshi: { money: 'real', currency: 'USDC', unit: 'USDC' },
};
/** A registered venue that declares nothing: real dollars. */
const REGISTERED_MONEY: VenueMoney = { money: 'real', currency: 'USD', unit: 'USDC' };
const declaredMoney = new Map<string, VenueMoney>();

/** Records what a registered venue declares of its money (its adapter's `money`: VenueRegistry). */
export function declareVenueMoney(venue: ExternalVenueId, money: VenueMoney): void {
  if (venue in MONEY) throw new Error(`venue ${venue} is built in: its money is declared here`);
  declaredMoney.set(venue, money);
}

export const venueMoney = (venue: VenueId): VenueMoney =>
  declaredMoney.get(venue) ?? (MONEY as Record<string, VenueMoney>)[venue] ?? REGISTERED_MONEY;

/** Whether trading on `venue` is play money: open to unclaimed agents, outside the real-money caps. */
export const isPaperMoney = (venue: VenueId) => venueMoney(venue).money === 'paper';

/** The venues of this process where trading moves the owner's real money, the built-in ones first. */
export const realMoneyVenueIds = (): VenueId[] => venueIds().filter((v) => !isPaperMoney(v));
