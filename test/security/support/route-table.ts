import type { AuthMode, EndpointSpec } from '../../../api/endpoints/endpoint.js';
import { ENDPOINTS, type EndpointName } from '../../../api/endpoints/index.js';
import { jsonSchemaOf } from './sample-values.js';

/** Every route of the contract, as the attack suite iterates it: a new endpoint is attacked with no new test. */
export const ROUTES = Object.entries(ENDPOINTS) as [EndpointName, EndpointSpec][];

/** Who can present a credential. */
export type Principal = 'none' | 'agent' | 'user' | 'operator';

/** The principals an auth mode lets in (agent-optional: anonymous or a valid agent key). */
export const ACCEPTED: Record<AuthMode, Principal[]> = {
  none: ['none', 'agent', 'user', 'operator'],
  agent: ['agent'],
  'agent-optional': ['none', 'agent'],
  user: ['user'],
  'agent-or-user': ['agent', 'user'],
  operator: ['operator'],
  'operator-optional': ['none', 'operator'],
};

/**
 * Every identifier name a route can take (path, query or body), and whether it names something a
 * caller owns. Owned ids are tried with another agent's and another user's (BOLA); public ones
 * are catalogue data anybody may read. A route with a name missing here fails the suite until it
 * is classified, so a new kind of id cannot slip past the BOLA cases.
 */
export const ID_NAMES: Record<string, { owned: boolean; why: string }> = {
  agent_id: { owned: true, why: 'an agent belongs to its human (and itself)' },
  webhook_id: { owned: true, why: 'a webhook belongs to the agent that registered it' },
  alert_id: { owned: true, why: 'a price alert belongs to the agent that created it' },
  order_id: { owned: true, why: 'an order belongs to the agent whose trade placed it' },
  quote_id: { owned: true, why: 'a Kalshi quote belongs to the agent that asked for it' },
  signal_id: { owned: true, why: 'a Reactor signal belongs to the agent it was made for' },
  trade_id: {
    owned: false,
    why: 'a trade the agent names in its own Reactor reaction: free text, read back to it alone',
  },
  market_id: { owned: false, why: 'markets are the public catalogue' },
  market_ids: { owned: false, why: 'markets are the public catalogue' },
  ids: { owned: false, why: 'market ids: the public catalogue' },
  id: { owned: false, why: 'a JSON-RPC request id, chosen by the caller' },
  clawdbot_chat_id: { owned: false, why: 'a chat on the owner’s own bridge, free text the bridge reads' },
  side: { owned: false, why: 'a market side (yes/no)' },
  name: { owned: false, why: 'a schedule name (operator routes; BFLA cases cover them)' },
  condition_id: { owned: false, why: 'a venue market id, public' },
  claim_code: { owned: false, why: 'shown to the human on purpose; enumeration is issue 16 finding 4' },
  venue: { owned: false, why: 'a venue name' },
  slug: { owned: false, why: 'skills are published by slug (operator route)' },
  user_id: { owned: false, why: 'operator route only (BFLA cases cover it)' },
  dynamic_user_id: { owned: false, why: 'the caller’s own identity-provider id, stored on its settings' },
  address: { owned: false, why: 'an on-chain address: public chain data' },
  wallet_address: { owned: false, why: 'an on-chain address: public chain data' },
  poly_address: { owned: false, why: 'an on-chain address: public chain data' },
  deposit_wallet_address: { owned: false, why: 'an on-chain address: public chain data' },
  solana_wallet_address: { owned: false, why: 'an on-chain address: public chain data' },
  key: { owned: false, why: 'a backtest tape’s key: the signed URL is the permission, not the key' },
  file: { owned: false, why: 'a file name of a backtest tape (markets, quant, manifest)' },
  upload_id: { owned: false, why: 'an operator’s upload to import (operator route; BFLA cases cover it)' },
  last_event_id: {
    owned: false,
    why: 'a position in the Reactor event stream: what is replayed from it is the caller’s own events only',
  },
};

/** Names that look like identifiers: path params always, and query/body fields ending in _id(s). */
const ID_LIKE = /(^|_)(id|ids)$/;

export interface IdUse {
  where: 'path' | 'query' | 'body';
  name: string;
}

function topLevelProperties(schema: EndpointSpec['body']): string[] {
  if (!schema) return [];
  const js = jsonSchemaOf(schema) as { properties?: object; $ref?: string; $defs?: Record<string, object> };
  const node = js.$ref ? (js.$defs?.[js.$ref.split('/').pop()!] as typeof js) : js;
  return Object.keys(node?.properties ?? {});
}

/** The identifiers a route takes, wherever they are. */
export function idUses(spec: EndpointSpec): IdUse[] {
  const uses: IdUse[] = Object.keys(spec.params?.shape ?? {}).map((name) => ({ where: 'path', name }));
  for (const name of topLevelProperties(spec.query))
    if (ID_LIKE.test(name)) uses.push({ where: 'query', name });
  for (const name of topLevelProperties(spec.body))
    if (ID_LIKE.test(name)) uses.push({ where: 'body', name });
  return uses;
}

export const bodyProperties = topLevelProperties;

export interface QueryParam {
  name: string;
  type: string | undefined;
  maximum?: number;
}

/** The query parameters of a route with their JSON Schema type and bound. */
export function queryParams(spec: EndpointSpec): QueryParam[] {
  if (!spec.query) return [];
  const js = jsonSchemaOf(spec.query) as { properties?: Record<string, Record<string, unknown>> };
  return Object.entries(js.properties ?? {}).map(([name, node]) => {
    const option = (node.anyOf as Record<string, unknown>[] | undefined)?.find((o) => o.type !== 'null');
    const effective = option ?? node;
    return {
      name,
      type: effective.type as string | undefined,
      maximum: effective.maximum as number | undefined,
    };
  });
}

/**
 * What the service does with each field that takes a URL (`<route>.<field>`). `delivers`: it sends
 * requests there later, so an internal address must be refused at once (no canary sees a NAT64 or
 * 6to4 spelling, and nothing is sent before a delivery is due). `inert`: stored as a link or parsed
 * for an id and never fetched, so reaching the canary is the failure. A new URL field must be listed.
 */
export const URL_FIELD_USES: Record<string, 'delivers' | 'inert'> = {
  'registerWebhook.url': 'delivers',
  'createAlert.webhook_url': 'delivers',
  'patchSdkSettings.clawdbot_webhook_url': 'delivers',
  'postSdkSettings.clawdbot_webhook_url': 'delivers',
  'patchUserSettings.clawdbot_webhook_url': 'delivers',
  'registerAgent.homepage': 'inert',
  'registerAgent.skill_url': 'inert',
  'submitSkill.registry_url': 'inert',
  'submitSkill.clawhub_url': 'inert',
  'checkMarket.url': 'inert',
  'importMarket.polymarket_url': 'inert',
  'importKalshiMarket.kalshi_url': 'inert',
  'importVenueMarket.url': 'inert',
};

/** Fields that take a URL the service might fetch (or store and fetch later). */
const URL_FIELD = /(^|_)(url|uri|homepage|endpoint|callback)$/;
export function urlFields(spec: EndpointSpec): IdUse[] {
  const fields: IdUse[] = [];
  for (const p of queryParams(spec))
    if (URL_FIELD.test(p.name)) fields.push({ where: 'query', name: p.name });
  for (const name of topLevelProperties(spec.body))
    if (URL_FIELD.test(name)) fields.push({ where: 'body', name });
  return fields;
}

/** Paths only an operator may reach, whatever the table says (BFLA). */
export const OPERATOR_ONLY_PATH = /^\/(api\/admin|admin|operator|metrics)(\/|$)/;
