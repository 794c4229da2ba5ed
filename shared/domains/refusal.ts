/**
 * A business refusal: the request was understood and is not an error of the service, so the API
 * answers 200 with `success: false` (architecture §6). The text is worded for the clients' keyword
 * classifier (client-contract §1.5), e.g. it contains "insufficient balance" literally.
 */
export interface Refusal {
  error: string;
  errorCode: string;
  retryable: boolean;
  hint?: string;
  /** Where the trades list files it (failure_category). */
  category: 'balance' | 'shares' | 'market' | 'agent' | 'price' | 'limit' | 'venue' | 'internal';
}

/** A refusal not worth retrying as is, with the hint that says what to do instead. */
export const refusalOf = (
  errorCode: string,
  error: string,
  hint: string,
  category: Refusal['category'] = 'venue',
): Refusal => ({ error, errorCode, retryable: false, hint, category });

export type Decision<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };

export const accept = <T>(value: T): Decision<T> => ({ ok: true, value });
export const refuse = <T = never>(refusal: Refusal): Decision<T> => ({ ok: false, refusal });

export const isDuplicateKey = (err: unknown, field?: string) => {
  const e = err as { code?: number; message?: string; keyPattern?: Record<string, unknown> };
  if (e?.code !== 11000) return false;
  if (!field) return true;
  return Boolean(e.keyPattern?.[field]) || String(e.message ?? '').includes(field);
};

/**
 * The indexes of the records an unordered insertMany refused as already there (duplicate key); null
 * when it failed otherwise (another refusal, or the command itself: nothing is known written).
 */
export function duplicateIndexes(err: unknown): number[] | null {
  const refused = [(err as { writeErrors?: unknown }).writeErrors ?? []].flat() as {
    index: number;
    code: number;
  }[];
  if (!refused.length || refused.some((w) => w.code !== 11000)) return null;
  return refused.map((w) => w.index);
}
