// Shared by the `npm run demo:*` scripts (polymarket-demo.ts, redemption-demo.ts, kalshi-demo.ts):
// printing, HTTP with a stop at the first unexpected answer, the emulators and their admin APIs, user
// tokens, agents, wallets, imported markets, positions and resolutions. Each request is printed as
// `METHOD path → HTTP status` with the fields that matter under it.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ClobClient, OrderType, Side } from '@polymarket/clob-client-v2';
import { Wallet } from 'ethers';
import jwt from 'jsonwebtoken';
import { createWalletClient, custom } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ConfigError, loadEnv, type Env } from '../shared/infra/config/env.js';
import { jwtSecret } from '../shared/infra/jwt.js';
import { resolveOperatorToken } from '../shared/infra/operator-token.js';

/** Polygon mainnet: the chain id the service and the emulator sign orders for. */
export const CHAIN_ID = 137;

export class DemoFailure extends Error {
  constructor(
    message: string,
    /** The HTTP status of the answer that failed the step, when there was one. */
    readonly status?: number,
  ) {
    super(message);
  }
}

export function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Whether the command line has the flag `--name` (one without a value). */
export const flag = (name: string) => process.argv.includes(`--${name}`);

export const baseUrl = (arg('base-url') ?? process.env.BASE_URL ?? 'http://localhost:8080').replace(
  /\/+$/,
  '',
);

// ---------------------------------------------------------------------------------------------
// Printing and HTTP

export type Json = Record<string, unknown>;

export function heading(title: string) {
  console.log(`\n== ${title}`);
}

/** Prints the fields of an answer worth reading, one per line, under the request line. */
export function show(fields: Json) {
  for (const [k, v] of Object.entries(fields)) {
    console.log(`      ${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  }
}

export function expect(condition: unknown, message: string, answer?: unknown): asserts condition {
  if (!condition) {
    throw new DemoFailure(answer === undefined ? message : `${message}\n  answer: ${JSON.stringify(answer)}`);
  }
}

export interface CallOptions {
  /** An agent API key or a user JWT. */
  auth?: string;
  body?: unknown;
  /** Print nothing for this request (polling loops print their own summary). */
  quiet?: boolean;
}

/** One HTTP request, printed as `METHOD path → HTTP status`; any status but 200 stops the demo. */
export async function request(
  url: string,
  label: string,
  method: string,
  opts: CallOptions = {},
): Promise<Json> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: {
        ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(opts.auth ? { authorization: `Bearer ${opts.auth}` } : {}),
      },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
  } catch (err) {
    throw new DemoFailure(`${method} ${url}: no answer (${(err as Error).cause ?? (err as Error).message})`);
  }
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON: kept as text for the failure message.
  }
  if (!opts.quiet || res.status !== 200) console.log(`  ${method.padEnd(6)} ${label} → HTTP ${res.status}`);
  if (res.status !== 200) {
    throw new DemoFailure(`${method} ${label} answered HTTP ${res.status}: ${text}`, res.status);
  }
  return (body ?? {}) as Json;
}

export const api = (method: string, path: string, opts?: CallOptions) =>
  request(`${baseUrl}${path}`, path, method, opts);

/** Calls `probe` every `everyMs` until `done` holds for its answer; stops the demo after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs, everyMs = 2000 }: { timeoutMs: number; everyMs?: number },
): Promise<T> {
  const started = Date.now();
  console.log(`  waiting (up to ${Math.round(timeoutMs / 1000)} s) until ${what}…`);
  for (;;) {
    const value = await probe();
    if (done(value)) {
      console.log(`  … after ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return value;
    }
    if (Date.now() - started > timeoutMs) {
      throw new DemoFailure(
        `Gave up after ${timeoutMs / 1000} s waiting until ${what}.\n  last answer: ${JSON.stringify(value)}`,
      );
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Runs a demo's steps: on the first failure, prints it and exits with code 1. */
export function runDemo(main: (env: Env) => Promise<void>) {
  Promise.resolve()
    .then(() => main(loadEnv()))
    .catch((err: unknown) => {
      if (err instanceof DemoFailure || err instanceof ConfigError) {
        console.error(`\nDEMO FAILED: ${err.message}`);
      } else {
        console.error('\nDEMO FAILED (unexpected error):', err);
      }
      process.exit(1);
    });
}

// ---------------------------------------------------------------------------------------------
// The emulator: where it is, and its admin API (fund, approve, new events)

export interface Emulator {
  adminUrl: string;
  clobUrl: string;
}

/**
 * `GET /api/admin/venues` (operator-only) as the service answers it: each venue with its hosts.
 * The operator token is the one the service generated into DATA_DIR (or OPERATOR_TOKEN), never a new one:
 * a token that did not exist cannot be the service's.
 */
async function serviceVenues(env: Env, flag: string): Promise<{ mode: unknown; venues: VenueHosts[] }> {
  const operatorFile = join(env.DATA_DIR, 'operator-token');
  if (!env.OPERATOR_TOKEN && !existsSync(operatorFile)) {
    throw new DemoFailure(
      `No operator token (OPERATOR_TOKEN unset, no ${operatorFile}) to ask GET /api/admin/venues where the ` +
        `emulator is. Run with the service’s DATA_DIR, or pass --${flag} <the /__admin URL of the start banner>.`,
    );
  }
  const answer = await api('GET', '/api/admin/venues', { auth: resolveOperatorToken(env).token });
  return { mode: answer.mode, venues: answer.venues as VenueHosts[] };
}

interface VenueHosts {
  venue: string;
  hosts: { base_url: string }[];
}

/** A venue host's base URL ending in `suffix`, checked to be an emulated one. */
async function emulatedHost(env: Env, venue: string, suffix: string, flag: string): Promise<string> {
  const answer = await serviceVenues(env, flag);
  const host = answer.venues
    .find((v) => v.venue === venue)
    ?.hosts.find((h) => h.base_url.endsWith(suffix))?.base_url;
  show({ mode: answer.mode, [`${venue}_host`]: host ?? null });
  expect(
    answer.mode === 'emulated' && host,
    'The service does not run against the emulators: start it with VENUES=emulated npm start.',
    answer,
  );
  return host.slice(0, -suffix.length);
}

/** An emulator's `/__admin` URL from one given as admin or base URL. */
const adminOf = (given: string) => `${given.replace(/\/+$/, '').replace(/\/__admin$/, '')}/__admin`;

/** `--emulator` as given (admin or base URL), else the Polymarket hosts the service reports. */
export async function findEmulator(env: Env): Promise<Emulator> {
  const given = arg('emulator') ?? process.env.EMULATOR_URL;
  if (given) {
    const adminUrl = adminOf(given);
    return { adminUrl, clobUrl: `${adminUrl.slice(0, -'/__admin'.length)}/clob` };
  }
  const base = await emulatedHost(env, 'polymarket', '/clob', 'emulator');
  return { adminUrl: `${base}/__admin`, clobUrl: `${base}/clob` };
}

export interface KalshiEmulator {
  /** Shown in request lines instead of the emulator's host. */
  name: 'kalshi';
  adminUrl: string;
  /** KALSHI_BASE_URL of the emulator (Kalshi Trade API v2). */
  kalshiUrl: string;
}

/**
 * The Kalshi emulator (Kalshi, DFlow, Proof and Solana RPC on one server): `--kalshi` as given (admin
 * or base URL, as `npm run emulators` prints KALSHI_EMULATOR_ADMIN_URL), else the Kalshi host the
 * service reports.
 */
export async function findKalshiEmulator(env: Env): Promise<KalshiEmulator> {
  const given = arg('kalshi') ?? process.env.KALSHI_EMULATOR_ADMIN_URL;
  const base = given
    ? adminOf(given).slice(0, -'/__admin'.length)
    : await emulatedHost(env, 'kalshi', '/trade-api/v2', 'kalshi');
  return { name: 'kalshi', adminUrl: `${base}/__admin`, kalshiUrl: `${base}/trade-api/v2` };
}

/** A request to an emulator's admin API, printed as `<emulator>/__admin/…` (or `<kalshi>/__admin/…`). */
export const emulatorAdmin = (
  emulator: { adminUrl: string; name?: string },
  method: string,
  path: string,
  body?: unknown,
  opts: { quiet?: boolean } = {},
) =>
  request(`${emulator.adminUrl}${path}`, `<${emulator.name ?? 'emulator'}>/__admin${path}`, method, {
    body,
    ...opts,
  });

/** Gives a wallet pUSD and the exchange approvals a real wallet sets on chain once. */
export async function fundAndApprove(emulator: Emulator, address: string, pusd: number) {
  await emulatorAdmin(emulator, 'POST', `/wallets/${address}/fund`, { pusd });
  await emulatorAdmin(emulator, 'POST', `/wallets/${address}/approve`);
  const ledger = await emulatorAdmin(emulator, 'GET', `/wallets/${address}`);
  show({ pusd: ledger.pusd, approved_for_all: ledger.approved_for_all });
}

/** pUSD only, as a human sends it to their managed wallet: the service sets its approvals itself. */
export async function fundOnly(emulator: Emulator, address: string, pusd: number) {
  await emulatorAdmin(emulator, 'POST', `/wallets/${address}/fund`, { pusd });
  const ledger = await emulatorAdmin(emulator, 'GET', `/wallets/${address}`);
  show({ pusd: ledger.pusd, approved_for_all: ledger.approved_for_all });
}

// ---------------------------------------------------------------------------------------------
// Users and agents

/** `userToken`, saying which user it is for and whose secret signed it. */
export function mintUserToken(env: Env, sub: string): string {
  const token = userToken(env, sub);
  console.log(`  user token for sub=${sub} (signed with the JWT secret of DATA_DIR=${env.DATA_DIR})`);
  return token;
}

/** A new user id and its token: minted first, so a run with the wrong DATA_DIR stops before creating anything. */
export function newUser(env: Env): { userId: string; token: string } {
  const userId = `demo-user-${randomBytes(4).toString('hex')}`;
  return { userId, token: mintUserToken(env, userId) };
}

/** A user JWT signed as `npm run token` signs one (same secret, issuer and audience). */
function userToken(env: Env, sub: string): string {
  if (env.JWT_PUBLIC_KEY) {
    throw new DemoFailure(
      'JWT_PUBLIC_KEY is set: user tokens come from your identity provider and this demo cannot mint one.',
    );
  }
  // jwtSecret() would generate a secret where there is none: one the service cannot know.
  const secretFile = join(env.DATA_DIR, 'jwt-secret');
  if (!env.JWT_SECRET && !existsSync(secretFile)) {
    throw new DemoFailure(
      `No JWT secret (JWT_SECRET unset, no ${secretFile}): run the demo with the service's DATA_DIR.`,
    );
  }
  return jwt.sign({ sub }, jwtSecret(env), {
    algorithm: 'HS256',
    expiresIn: 3600,
    ...(env.JWT_ISSUER ? { issuer: env.JWT_ISSUER } : {}),
    ...(env.JWT_AUDIENCE ? { audience: env.JWT_AUDIENCE } : {}),
  });
}

export interface Agent {
  name: string;
  agentId: string;
  apiKey: string;
}

export async function registerAgent(name: string): Promise<Agent & { claimCode: string }> {
  const r = await api('POST', '/api/sdk/agents/register', { body: { name } });
  show({ agent_id: r.agent_id, claim_code: r.claim_code, status: r.status });
  return {
    name,
    agentId: String(r.agent_id),
    apiKey: String(r.api_key),
    claimCode: String(r.claim_code),
  };
}

/** A new user claims the agent and switches real trading on (settings are the human's, shared by their agents). */
export async function claimWithRealTrading(token: string, agent: Agent & { claimCode: string }) {
  const claimed = await api('POST', '/api/sdk/agents/claim', {
    auth: token,
    body: { claim_code: agent.claimCode },
  }).catch((err: unknown) => {
    // A 401 here is nearly always a token signed with another instance's secret.
    if (err instanceof DemoFailure && err.status === 401) {
      throw new DemoFailure(
        `${err.message}\n  The user token was refused: run the demo with the service's DATA_DIR (or JWT_SECRET) in the environment.`,
      );
    }
    throw err;
  });
  show({ claimed: claimed.claimed, claimed_by: claimed.claimed_by });
  return enableRealTrading(token);
}

/** PATCH /api/sdk/settings turning real trading on; the settings it answers. */
async function enableRealTrading(userToken: string) {
  const settings = await api('PATCH', '/api/sdk/settings', {
    auth: userToken,
    body: { sdk_real_trading_enabled: true },
  });
  show({
    sdk_real_trading_enabled: settings.sdk_real_trading_enabled,
    wallet_address: settings.wallet_address,
    wallet_ownership: settings.wallet_ownership,
  });
  expect(settings.sdk_real_trading_enabled === true, 'Real trading did not switch on.', settings);
  return settings;
}

// ---------------------------------------------------------------------------------------------
// Markets, wallets and trades

export interface Market {
  marketId: string;
  conditionId: string;
  yesToken: string;
  noToken: string;
}

/** A fresh binary event on the emulator (never imported before, so reruns work), imported by its URL. */
export async function importFreshMarket(
  emulator: Emulator,
  a: Agent,
  event: { question: string; slug: string },
): Promise<Market> {
  const tag = randomBytes(3).toString('hex');
  const created = await emulatorAdmin(emulator, 'POST', '/events', {
    title: `${event.question} (${tag})?`,
    slug: `${event.slug}-${tag}`,
    outcomes: ['Yes', 'No'],
    prices: [0.55, 0.45],
  });
  const m = (created.markets as { slug: string; condition_id: string; token_ids: string[] }[])[0]!;
  show({ slug: m.slug, condition_id: m.condition_id });
  const url = `https://polymarket.com/market/${m.slug}`;
  const imported = await api('POST', '/api/sdk/markets/import', {
    auth: a.apiKey,
    body: { polymarket_url: url },
  });
  show({
    polymarket_url: url,
    status: imported.status,
    market_id: imported.market_id,
    question: imported.question,
    polymarket_id: imported.polymarket_id,
    external_price_yes: imported.external_price_yes,
  });
  expect(imported.success === true && imported.market_id, 'The import did not succeed.', imported);
  return {
    marketId: String(imported.market_id),
    conditionId: m.condition_id,
    yesToken: m.token_ids[0]!,
    noToken: m.token_ids[1]!,
  };
}

/** A new ethers wallet linked to the agent's human by signing the service's challenge. */
export async function linkNewWallet(a: Agent): Promise<Wallet> {
  const wallet = Wallet.createRandom() as unknown as Wallet;
  console.log(`  new wallet ${wallet.address}`);
  const challenge = await api('GET', `/api/sdk/wallet/link/challenge?address=${wallet.address}`, {
    auth: a.apiKey,
  });
  show({ nonce: challenge.nonce, expires_at: challenge.expires_at });
  const signature = await wallet.signMessage(String(challenge.message));
  const linked = await api('POST', '/api/sdk/wallet/link', {
    auth: a.apiKey,
    body: {
      address: wallet.address,
      signature,
      nonce: challenge.nonce,
      signature_type: 0,
      // The claim gave the human a managed wallet; the link must say it replaces it as trading wallet.
      confirm_replace_managed: true,
    },
  });
  show({
    success: linked.success,
    wallet_address: linked.wallet_address,
    wallet_ownership: linked.wallet_ownership,
    has_credentials: linked.has_credentials,
  });
  expect(linked.success === true, 'The wallet link was refused.', linked);
  return wallet;
}

/**
 * CLOB credentials derived with Polymarket's official client from an L1 (EIP-712) signature and
 * registered with the service; the client, with those credentials, for signing orders.
 */
export async function registerClobCredentials(
  emulator: Emulator,
  a: Agent,
  wallet: Wallet,
): Promise<ClobClient> {
  // Signing needs no chain access, so the viem transport refuses every RPC call.
  const signer = createWalletClient({
    account: privateKeyToAccount(wallet.privateKey as `0x${string}`),
    transport: custom({ request: () => Promise.reject(new Error('the demo makes no RPC calls')) }),
  });
  const creds = await new ClobClient({
    host: emulator.clobUrl,
    chain: CHAIN_ID,
    signer,
  }).createOrDeriveApiKey();
  console.log(`  official client createOrDeriveApiKey at ${emulator.clobUrl} → key ${creds.key}`);
  expect(creds.key && creds.secret && creds.passphrase, 'The CLOB gave no credentials.', creds);
  const stored = await api('POST', '/api/sdk/wallet/credentials', {
    auth: a.apiKey,
    body: { api_key: creds.key, api_secret: creds.secret, api_passphrase: creds.passphrase },
  });
  show({
    has_credentials: stored.has_credentials,
    wallet_address: stored.wallet_address,
    source: stored.source,
  });
  return new ClobClient({ host: emulator.clobUrl, chain: CHAIN_ID, signer, creds });
}

export const trade = (agent: Agent, body: Json) =>
  api('POST', '/api/sdk/trade', { auth: agent.apiKey, body: { venue: 'polymarket', ...body } });

/**
 * A buy the CLOB matched: `unconfirmed` while the chain settles it (MATCHED → MINED → CONFIRMED, a few
 * seconds on the emulator clock), `filled` once it has.
 */
export const matched = (r: Json) =>
  r.success === true && (r.fill_status === 'unconfirmed' || r.fill_status === 'filled');

export const tradeFields = (r: Json) => ({
  success: r.success,
  order_status: r.order_status,
  fill_status: r.fill_status,
  shares_bought: r.shares_bought,
  shares_sold: r.shares_sold,
  cost: r.cost,
  order_id: r.order_id,
  ...(r.success ? {} : { error: r.error, error_code: r.error_code, hint: r.hint }),
});

// ---------------------------------------------------------------------------------------------
// Positions and resolution

export const positionFields = (p: Json | undefined) =>
  p
    ? {
        market_id: p.market_id,
        venue: p.venue,
        side: p.side,
        shares_yes: p.shares_yes,
        cost_basis: p.cost_basis,
        current_value: p.current_value,
        pnl: p.pnl,
        status: p.status,
        market_status: p.market_status,
        redeemable: p.redeemable,
        redeemable_side: p.redeemable_side,
        payout: p.payout,
      }
    : { position: null };

/** The agent's position in `marketId` on `venue` (any status), from `GET /api/sdk/positions`. */
export async function positionIn(
  agent: Agent,
  marketId: string,
  venue: string,
  quiet = false,
): Promise<Json | undefined> {
  const r = await api('GET', `/api/sdk/positions?venue=${venue}&status=all`, { auth: agent.apiKey, quiet });
  return (r.positions as Json[]).find((p) => p.market_id === marketId);
}

/** Waits until `GET /api/sdk/markets/{id}` shows the market resolved (the check-resolutions job); the market. */
export async function waitResolved(agent: Agent, marketId: string, timeoutMs: number): Promise<Json> {
  const m = await waitFor(
    `GET /api/sdk/markets/${marketId} shows it resolved (check-resolutions job)`,
    async () =>
      (await api('GET', `/api/sdk/markets/${marketId}`, { auth: agent.apiKey, quiet: true })).market as Json,
    (r) => r.status === 'resolved',
    { timeoutMs },
  );
  console.log(`  GET    /api/sdk/markets/${marketId} → HTTP 200`);
  show({ status: m.status, outcome: m.outcome, resolved_at: m.resolved_at });
  return m;
}

/** A FAK buy of YES for $10, signed by the official client (the service only relays it); the shares bought. */
export async function signedBuy(a: Agent, clob: ClobClient, market: Market): Promise<number> {
  const signed = await clob.createMarketOrder({
    tokenID: market.yesToken,
    amount: 10,
    side: Side.BUY,
    price: 0.6,
    orderType: OrderType.FAK,
  });
  const r = await trade(a, {
    market_id: market.marketId,
    side: 'yes',
    amount: 10,
    order_type: 'FAK',
    signed_order: signed,
  });
  show(tradeFields(r));
  expect(matched(r), 'The signed buy did not fill.', r);
  return Number(r.shares_bought);
}
