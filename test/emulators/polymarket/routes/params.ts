import type { Request } from 'express';

// Query-string helpers. Express 5's default "simple" query parser turns repeated keys
// (`slug=a&slug=b`) into arrays, which is exactly how the real APIs take list filters.

/** All values of a (possibly repeated) key. Comma lists are NOT split: Gamma wants repeated keys. */
export function list(req: Request, key: string): string[] {
  const v = req.query[key];
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string');
}

/** The single value of a key (the first one when repeated). */
export function one(req: Request, key: string): string | undefined {
  return list(req, key)[0];
}

/** `"true"`/`"false"`; `null` when the value is something else (caller answers 4xx). */
export function bool(value: string | undefined): boolean | undefined | null {
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  return null;
}

/** A non-negative integer; `null` when malformed. */
export function uint(value: string | undefined): number | undefined | null {
  if (value === undefined) return undefined;
  return /^\d{1,15}$/.test(value) ? Number(value) : null;
}
