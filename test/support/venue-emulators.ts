import { randomBytes } from 'node:crypto';
import { testContext } from './context.js';

/** Calls an emulator's control plane at `adminUrl`; a non-2xx answer throws with its body. */
export async function emulatorAdmin<T>(
  adminUrl: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<T> {
  const res = await fetch(`${adminUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`emulator ${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

/** Calls the Polymarket emulator's control plane (`/__admin`) of this run. */
export const polymarketAdmin = <T = unknown>(
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
) => emulatorAdmin<T>(testContext().polymarket.adminUrl, method, path, body);

/** Calls the Kalshi emulator's control plane (`/__admin`, test/emulators/kalshi/KALSHI.md) of this run. */
export const kalshiAdmin = <T = unknown>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) =>
  emulatorAdmin<T>(testContext().kalshi.adminUrl, method, path, body);

export interface EmulatedKalshiEvent {
  event_ticker: string;
  series_ticker: string;
  markets: { ticker: string; yes_sub_title: string }[];
}

export interface KalshiMarketSpec {
  yes_sub_title?: string;
  /** YES mid; null = an empty book. */
  yes?: number | null;
  status?: string;
  wire?: 'current' | 'legacy' | 'both';
}

/** A fresh Kalshi event, in a series of its own, that no other test has imported. */
export async function newKalshiEvent(
  markets: KalshiMarketSpec[] = [{ yes: 0.5 }],
): Promise<EmulatedKalshiEvent> {
  const tag = randomBytes(4).toString('hex').toUpperCase();
  return kalshiAdmin<EmulatedKalshiEvent>('POST', '/events', {
    title: `Kalshi test event ${tag}?`,
    series_ticker: `KXT${tag}`,
    markets,
  });
}

export interface EmulatedEvent {
  event_id: string;
  event_slug: string;
  neg_risk: boolean;
  markets: {
    id: string;
    slug: string;
    condition_id: string;
    token_ids: string[];
    group_item_title: string | null;
    price: number;
  }[];
}

/**
 * A fresh event on the emulator that no other test has imported: 2 or fewer outcomes make one binary
 * market, 3 or more a neg-risk event with one market per outcome.
 */
export async function newPolymarketEvent(
  outcomes: string[] = ['Yes', 'No'],
  prices?: number[],
): Promise<EmulatedEvent> {
  const tag = randomBytes(4).toString('hex');
  return polymarketAdmin<EmulatedEvent>('POST', '/events', {
    title: `Test event ${tag}?`,
    slug: `test-event-${tag}`,
    outcomes,
    ...(prices ? { prices } : {}),
  });
}

export const polymarketEventUrl = (slug: string) => `https://polymarket.com/event/${slug}`;
