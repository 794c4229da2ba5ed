import { randomBytes } from 'node:crypto';
import {
  jsonCall,
  polymarketEmulatorAdmin,
  useClientVenvService,
  type ClientVenvService,
} from './client-venv-service.js';

/** A `VENUES=emulated` service for a skill's suite, with its operator token and the Polymarket emulator's admin door. */
export interface EmulatedSkillService {
  s: ClientVenvService;
  operatorToken: string;
  /** The Polymarket emulator's admin base URL (`…/__admin`), once the service runs. */
  polymarketAdmin: () => Promise<string>;
}

/**
 * useClientVenvService with `VENUES=emulated`, its own PUBLIC_BASE_URL and a fresh OPERATOR_TOKEN,
 * and `env` beside them: the set-up a published skill's suite runs against.
 */
export function useEmulatedSkillService(
  name: string,
  env: Record<string, string> = {},
): EmulatedSkillService {
  const operatorToken = randomBytes(24).toString('base64url');
  const s = useClientVenvService(name, (url) => ({
    VENUES: 'emulated',
    PUBLIC_BASE_URL: url,
    OPERATOR_TOKEN: operatorToken,
    ...env,
  }));
  return { s, operatorToken, polymarketAdmin: () => polymarketEmulatorAdmin(s.base, operatorToken) };
}

/** One market of an event the Polymarket emulator's admin door made (test/emulators/polymarket/routes/admin.ts). */
export interface EmulatedEventMarket {
  condition_id: string;
  question: string;
  token_ids: string[];
}

export interface EmulatedEvent {
  event_slug: string;
  markets: EmulatedEventMarket[];
}

/**
 * A binary event made on the Polymarket emulator through its admin door `admin` (`POST /__admin/events`),
 * YES at `yes`, with Gamma's `tags` when given (`sports` makes its markets ones the shock detector watches).
 */
export const emulatedEvent = (admin: string, title: string, yes: number, tags?: string[]) =>
  jsonCall<EmulatedEvent>(`${admin}/events`, 'POST', { title, prices: [yes], ...(tags ? { tags } : {}) });

/**
 * `emulatedEvent`, imported into the service at `base` by the agent `apiKey` as a client imports one
 * (`POST /api/sdk/markets/import` with its polymarket.com URL): the emulated market and our market id.
 */
export async function importedEmulatedEvent(
  admin: string,
  base: string,
  apiKey: string,
  title: string,
  yes: number,
  tags?: string[],
): Promise<{ venue: EmulatedEventMarket; marketId: string }> {
  const event = await emulatedEvent(admin, title, yes, tags);
  const imported = await jsonCall<{ market_id: string }>(
    `${base}/api/sdk/markets/import`,
    'POST',
    { polymarket_url: `https://polymarket.com/event/${event.event_slug}` },
    apiKey,
  );
  return { venue: event.markets[0]!, marketId: imported.market_id };
}

/** A row of `GET /api/sdk/trades`, the fields a skill's suite checks. */
export interface AgentTrade {
  market_id: string;
  venue: string;
  action: string;
  side: string;
  amount: number;
  shares: number;
  source: string;
  skill_slug: string;
}

/** The trades of the agent `apiKey` (`GET /api/sdk/trades`), newest first. */
export const agentTrades = async (base: string, apiKey: string) =>
  (await jsonCall<{ trades: AgentTrade[] }>(`${base}/api/sdk/trades`, 'GET', undefined, apiKey)).trades;
