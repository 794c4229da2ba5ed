import type { Model } from 'mongoose';
import type { Deps } from '../../../shared/composition/deps.js';
import { POLYGON_CONTRACTS } from '../../../shared/domains/venues/polymarket/onchain/polygon-contracts.js';

/** One value of a tenant's data the cross-user pass looks for in another tenant's answers. */
export interface Fingerprint {
  /** Where it comes from, e.g. `Webhook.url` or `sdk_daily_limit`: what a failure names. */
  label: string;
  value: string | number;
}

/** A tenant: its human, the one agent whose records are its own, and its settings owner key. */
export interface Tenant {
  userId: string;
  agentId: string;
}

type Models = Deps['models'];
type ModelName = keyof Models;

/**
 * Every record kind a tenant owns, and how to find the tenant's records of it (models in
 * shared/domains/<domain>/*.model.ts that carry an agent or user id, or are keyed by one). A
 * model missing from both this table and PUBLIC_RECORDS fails the suite until it is classified.
 */
export const TENANT_RECORDS: Partial<Record<ModelName, (t: Tenant) => Record<string, unknown>>> = {
  Agent: (t) => ({ _id: t.agentId }),
  User: (t) => ({ _id: t.userId }),
  TradingSettings: (t) => ({ _id: `user:${t.userId}` }),
  Wallet: (t) => ({ _id: t.userId }),
  AgentWallet: (t) => ({ _id: t.agentId }),
  ClobCredential: (t) => ({ userId: t.userId }),
  TxBroadcast: (t) => ({ userId: t.userId }),
  Redemption: (t) => ({ userId: t.userId }),
  DepositWalletBatch: (t) => ({ userId: t.userId }),
  WalletApproval: (t) => ({ userId: t.userId }),
  SolanaWalletProof: (t) => ({ ownerKey: `user:${t.userId}` }),
  Trade: (t) => ({ agentId: t.agentId }),
  Position: (t) => ({ agentId: t.agentId }),
  LedgerEntry: (t) => ({ agentId: t.agentId }),
  MarketImport: (t) => ({ agentId: t.agentId }),
  VenueStanding: (t) => ({ agentId: t.agentId }),
  VenueTally: (t) => ({ agentId: t.agentId }),
  Webhook: (t) => ({ agentId: t.agentId }),
  PriceAlert: (t) => ({ agentId: t.agentId }),
  PositionMonitor: (t) => ({ agentId: t.agentId }),
  RiskAlert: (t) => ({ agentId: t.agentId }),
  ResearchExperiment: (t) => ({ agentId: t.agentId }),
  Automaton: (t) => ({ _id: t.agentId }),
  AutomatonCycle: (t) => ({ agentId: t.agentId }),
  KalshiQuote: (t) => ({ agentId: t.agentId }),
  ReactorConfig: (t) => ({ _id: t.agentId }),
  ReactorSignal: (t) => ({ agentId: t.agentId }),
  ReactorReaction: (t) => ({ agentId: t.agentId }),
  ShockLadderConfig: (t) => ({ _id: t.agentId }),
  ShockSignal: (t) => ({ agentId: t.agentId }),
  // An approved skill is the public catalogue; one pending review is its submitter's alone.
  Skill: (t) => ({ submittedBy: t.agentId, status: { $ne: 'approved' } }),
};

/** Models that no tenant owns, and why. */
export const PUBLIC_RECORDS: Partial<Record<ModelName, string>> = {
  Market: 'the public catalogue (an imported market is everybody’s once imported)',
  MarketEvent: 'a market’s public tape of fills, resolutions and anchors, with no agent',
  PricePoint: 'a market’s public price history',
  Candle: 'public exchange candles',
  Heartbeat: 'the scheduler’s own',
  LeaderboardMeta: 'the public board’s totals',
  ScheduleRun: 'the scheduler’s own',
  OperatorAction: 'the operator’s audit trail (operator routes only)',
  TapeCursor: 'the tape recorder’s own',
  TapeRecorder: 'the tape recorder’s own',
  VenueFill: 'a venue’s public settlement (who traded on chain), read from the chain by the fill feed',
  FillFeedCursor: 'the fill feed follower’s own',
  CopyLeaders: 'wallets ranked from the venues’ public settlement (the daily copy-leaders job’s own)',
};

/** Values that are everybody's whichever record holds them: the venues' contracts. */
const PUBLIC_VALUES = new Set(Object.values(POLYGON_CONTRACTS).map((v) => v.toLowerCase()));

/**
 * Fields of tenant records that quote the public catalogue (the market an import asked for, by its
 * venue's names) rather than anything of the tenant's.
 */
const CATALOGUE_FIELDS = new Set([
  'MarketImport.url',
  'MarketImport.eventSlug',
  'MarketImport.marketSlug',
  'MarketImport.ticker',
  'MarketImport.series',
  'MarketImport.result',
  // A batch's calls are the same approvals of the same contracts for every wallet.
  'DepositWalletBatch.calls',
  // The allowance keys name the same contracts for every wallet.
  'WalletApproval.txs',
  'KalshiQuote.ticker',
  'KalshiQuote.inputMint',
  'KalshiQuote.outputMint',
]);

/** A string that names one tenant's record: long enough and not a word or a date. */
function distinctive(s: string): boolean {
  if (s.length < 8 || PUBLIC_VALUES.has(s.toLowerCase())) return false;
  // A date, or an amount in base units: not one tenant's.
  if (/^\d{4}-\d\d-\d\d/.test(s) || /^\d+$/.test(s)) return false;
  return /\d/.test(s) || /victim/i.test(s);
}

/** Every distinctive string leaf of a record (numbers are planted on purpose: VICTIM_NUMBERS). */
function stringsOf(value: unknown, path: string, out: Fingerprint[]): void {
  if (CATALOGUE_FIELDS.has(path)) return;
  if (typeof value === 'string') {
    if (distinctive(value)) out.push({ label: path, value });
  } else if (Array.isArray(value)) {
    for (const item of value) stringsOf(item, path, out);
  } else if (value && typeof value === 'object' && !(value instanceof Date) && !Buffer.isBuffer(value)) {
    for (const [k, inner] of Object.entries(value)) stringsOf(inner, `${path}.${k}`, out);
  }
}

/**
 * The tenant's fingerprints read from the database: every distinctive string of every record it
 * owns (ids, addresses, URLs, hashes, names, notes), less the public values its records quote
 * (the markets they are on). With how many records of each kind were read.
 */
export async function tenantFingerprints(models: Models, tenant: Tenant) {
  const found: Fingerprint[] = [];
  const counts: Record<string, number> = {};
  const marketIds = new Set<string>();
  for (const [name, filter] of Object.entries(TENANT_RECORDS)) {
    const model = models[name as ModelName] as unknown as Model<Record<string, unknown>>;
    const docs = await model.find(filter!(tenant)).lean();
    counts[name] = docs.length;
    for (const doc of docs) {
      stringsOf(doc, name, found);
      const marketId = (doc as { marketId?: unknown }).marketId;
      if (typeof marketId === 'string') marketIds.add(marketId);
    }
  }
  const markets = await models.Market.find({ _id: { $in: [...marketIds] } }).lean();
  const catalogue: Fingerprint[] = [];
  for (const m of markets) stringsOf(m, 'Market', catalogue);
  const publicValues = new Set(catalogue.map((f) => String(f.value).toLowerCase()));
  const unique = new Map<string, Fingerprint>();
  for (const f of found) {
    const key = String(f.value).toLowerCase();
    if (!publicValues.has(key) && !unique.has(key)) unique.set(key, f);
  }
  return { fingerprints: [...unique.values()], counts };
}

/**
 * The tenant's records as the attacks must leave them: each kind's ids, with the fields a change
 * by another tenant would show in (a monitor's state, the settings' limits and wallet).
 */
export async function tenantRecords(models: Models, tenant: Tenant): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [name, filter] of Object.entries(TENANT_RECORDS)) {
    const model = models[name as ModelName] as unknown as Model<Record<string, unknown>>;
    const docs = await model.find(filter!(tenant)).lean();
    out[name] = docs.map((d) => JSON.stringify([d._id, ...KEPT_FIELDS.map((f) => d[f])])).sort();
  }
  return out;
}

/** Fields no other tenant's request may change (absent from most kinds: undefined). */
const KEPT_FIELDS = [
  'state',
  'claimedBy',
  'maxTradesPerDay',
  'sdkMaxTradeMicro',
  'sdkDailyLimitMicro',
  'maxPositionMicro',
  'pausedByUser',
  'pausedByAgent',
  'solanaWalletAddress',
  'clawdbotWebhookUrl',
  'address',
  'url',
  'threshold',
  'stopLossPct',
  'takeProfitPct',
  'budgetMicro',
  'halted',
];

/** Numbers of a JSON answer, wherever they are. */
function numbersOf(value: unknown, out: Set<number>): Set<number> {
  if (typeof value === 'number') out.add(value);
  else if (Array.isArray(value)) for (const item of value) numbersOf(item, out);
  else if (value && typeof value === 'object')
    for (const inner of Object.values(value)) numbersOf(inner, out);
  return out;
}

/**
 * The fingerprints an answer carries, less `ignored` (values the request itself sent, which an
 * answer may echo). Strings anywhere in the text, any case (addresses change case between
 * spellings); numbers as JSON numbers, or in a text answer only with a fractional part.
 */
export function fingerprintsIn(
  answer: { text: string; body: unknown; json: boolean },
  fingerprints: Fingerprint[],
  ignored: Set<string>,
): Fingerprint[] {
  const text = answer.text.toLowerCase();
  const numbers = answer.json ? numbersOf(answer.body, new Set()) : undefined;
  return fingerprints.filter((f) => {
    if (typeof f.value === 'number') {
      if (numbers) return numbers.has(f.value);
      return !Number.isInteger(f.value) && new RegExp(`(?<![\\d.])${f.value}(?!\\d)`).test(answer.text);
    }
    const value = f.value.toLowerCase();
    return !ignored.has(value) && text.includes(value);
  });
}
