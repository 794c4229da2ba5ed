import type { Models } from '../models.js';

/** What the audit's batches (audit-agents.ts, audit-markets.ts) share: the models read and what they report. */

export type AuditModels = Pick<
  Models,
  'Agent' | 'Position' | 'LedgerEntry' | 'Market' | 'MarketEvent' | 'Trade'
>;
export type AuditValue = number | string | boolean | null;

/** Prices are recomputed with the same float arithmetic as when they were logged. */
export const PRICE_TOLERANCE = 1e-9;

/** One value that differs: `expected` is recomputed from the durable record, `actual` is stored. */
export interface AuditDifference {
  kind: 'agent' | 'position' | 'market';
  id: string;
  field: string;
  expected: AuditValue;
  actual: AuditValue;
}

/** The differences one batch found, grouped by the agent or market they belong to (re-checked as a unit). */
export class Findings {
  readonly byOwner = new Map<string, AuditDifference[]>();

  /** Records a difference of `owner` unless `expected` equals `actual` (within `tolerance` for numbers). */
  compare(owner: string, diff: AuditDifference, tolerance = 0): void {
    const { expected, actual } = diff;
    const same =
      typeof expected === 'number' && typeof actual === 'number'
        ? Math.abs(expected - actual) <= tolerance
        : expected === actual;
    if (same) return;
    entryOf(this.byOwner, owner, () => []).push(diff);
  }
}

/** What rounding kept for the house over the sim fills checked (audit-fills.ts). */
export interface HouseDust {
  /** Fills replayed and checked. */
  fills: number;
  /** The sum of their dust, micro-units (a fraction: the LMSR value is not an integer). */
  dustMicro: number;
}

export const noDust = (): HouseDust => ({ fills: 0, dustMicro: 0 });

export interface BatchAudit {
  positions: number;
  behind: number;
  findings: Findings;
  /** Markets only. */
  house?: HouseDust;
}

/** A query of documents to audit, in `_id` order: awaited whole, or walked with one cursor. */
export interface AuditQuery<D> extends PromiseLike<D[]> {
  cursor(options: { batchSize: number }): AsyncIterable<D>;
}

/** How the agents, or the markets, are audited. */
export interface Auditor<D extends { _id: string }> {
  /** The documents matching `filter`, with the fields the audit compares, in `_id` order. */
  read(models: AuditModels, filter: Record<string, unknown>): AuditQuery<D>;
  /** Audits documents consecutive in `_id` order against their logs. */
  audit(models: AuditModels, docs: D[]): Promise<BatchAudit>;
}

/**
 * The `_id` range of a batch (sorted by `_id`): what its logs are matched by, a cheap range on the logs'
 * index where a long `$in` would be one comparison per id (a few rows of documents outside the batch
 * may come along; they are ignored).
 */
export const idRange = (docs: { _id: string }[]) => ({ $gte: docs[0]!._id, $lte: docs.at(-1)!._id });

/** The value of `key` in `map`, made and stored first if absent. */
export function entryOf<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  const found = map.get(key);
  if (found !== undefined) return found;
  const made = make();
  map.set(key, made);
  return made;
}

/** `items` by `key`, in their order. */
export function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) entryOf(groups, key(item), () => []).push(item);
  return groups;
}
