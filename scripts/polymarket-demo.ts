// `npm run demo:polymarket -- [--base-url <url>] [--emulator <admin url>]`: the Polymarket trading
// acceptance flow, step by step, against a running `VENUES=emulated npm start`. Each request is
// printed with its HTTP status and the fields that matter; the first unexpected answer stops the
// demo with exit code 1.
//
// Run it with the service's DATA_DIR (or JWT_SECRET / OPERATOR_TOKEN) in the environment: the user
// tokens are signed with the same development secret as `npm run token`, and the emulator's address
// is read from GET /api/admin/venues with the operator token. `--emulator` (the `/__admin` URL the
// start banner prints, or the emulator's base URL; env EMULATOR_URL works too) skips that look-up.
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
const CHAIN_ID = 137;

class DemoFailure extends Error {
  constructor(
    message: string,
    /** The HTTP status of the answer that failed the step, when there was one. */
    readonly status?: number,
  ) {
    super(message);
  }
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const baseUrl = (arg('base-url') ?? process.env.BASE_URL ?? 'http://localhost:8080').replace(/\/+$/, '');

// ---------------------------------------------------------------------------------------------
// Printing and HTTP

type Json = Record<string, unknown>;

function heading(title: string) {
  console.log(`\n== ${title}`);
}

/** Prints the fields of an answer worth reading, one per line, under the request line. */
function show(fields: Json) {
  for (const [k, v] of Object.entries(fields)) {
    console.log(`      ${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  }
}

function expect(condition: unknown, message: string, answer?: unknown): asserts condition {
  if (!condition) {
    throw new DemoFailure(answer === undefined ? message : `${message}\n  answer: ${JSON.stringify(answer)}`);
  }
}

interface CallOptions {
  /** An agent API key or a user JWT. */
  auth?: string;
  body?: unknown;
}

/** One HTTP request, printed as `METHOD path → HTTP status`; any status but 200 stops the demo. */
async function request(url: string, label: string, method: string, opts: CallOptions = {}): Promise<Json> {
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
  console.log(`  ${method.padEnd(6)} ${label} → HTTP ${res.status}`);
  if (res.status !== 200) {
    throw new DemoFailure(`${method} ${label} answered HTTP ${res.status}: ${text}`, res.status);
  }
  return (body ?? {}) as Json;
}

const api = (method: string, path: string, opts?: CallOptions) =>
  request(`${baseUrl}${path}`, path, method, opts);

// ---------------------------------------------------------------------------------------------
// The emulator: where it is, and its admin API (fund, approve, new events)

interface Emulator {
  adminUrl: string;
  clobUrl: string;
}

/** `--emulator` as given (admin or base URL), else the Polymarket hosts the service reports. */
async function findEmulator(env: Env): Promise<Emulator> {
  const given = arg('emulator') ?? process.env.EMULATOR_URL;
  if (given) {
    const base = given.replace(/\/+$/, '').replace(/\/__admin$/, '');
    return { adminUrl: `${base}/__admin`, clobUrl: `${base}/clob` };
  }
  // GET /api/admin/venues is operator-only. Read the token the service generated, never create one:
  // a token that did not exist cannot be the service's.
  const operatorFile = join(env.DATA_DIR, 'operator-token');
  if (!env.OPERATOR_TOKEN && !existsSync(operatorFile)) {
    throw new DemoFailure(
      `No operator token (OPERATOR_TOKEN unset, no ${operatorFile}) to ask GET /api/admin/venues where the ` +
        'emulator is. Run with the service’s DATA_DIR, or pass --emulator <the /__admin URL of the start banner>.',
    );
  }
  const venues = await api('GET', '/api/admin/venues', { auth: resolveOperatorToken(env).token });
  const polymarket = (venues.venues as { venue: string; hosts: { base_url: string }[] }[]).find(
    (v) => v.venue === 'polymarket',
  );
  const clob = polymarket?.hosts.find((h) => h.base_url.endsWith('/clob'))?.base_url;
  show({ mode: venues.mode, polymarket_clob: clob ?? null });
  expect(
    venues.mode === 'emulated' && clob,
    'The service does not run against the emulator: start it with VENUES=emulated npm start.',
    venues,
  );
  return { adminUrl: `${clob.slice(0, -'/clob'.length)}/__admin`, clobUrl: clob };
}

const emulatorAdmin = (emulator: Emulator, method: string, path: string, body?: unknown) =>
  request(`${emulator.adminUrl}${path}`, `<emulator>/__admin${path}`, method, { body });

/** Gives a wallet pUSD and the exchange approvals a real wallet sets on chain once. */
async function fundAndApprove(emulator: Emulator, address: string, pusd: number) {
  await emulatorAdmin(emulator, 'POST', `/wallets/${address}/fund`, { pusd });
  await emulatorAdmin(emulator, 'POST', `/wallets/${address}/approve`);
  const ledger = await emulatorAdmin(emulator, 'GET', `/wallets/${address}`);
  show({ pusd: ledger.pusd, approved_for_all: ledger.approved_for_all });
}

// ---------------------------------------------------------------------------------------------
// Users and agents

/** `userToken`, saying which user it is for and whose secret signed it. */
function mintUserToken(env: Env, sub: string): string {
  const token = userToken(env, sub);
  console.log(`  user token for sub=${sub} (signed with the JWT secret of DATA_DIR=${env.DATA_DIR})`);
  return token;
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

interface Agent {
  name: string;
  agentId: string;
  apiKey: string;
}

async function registerAgent(name: string): Promise<Agent & { claimCode: string }> {
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
async function claimWithRealTrading(token: string, agent: Agent & { claimCode: string }) {
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
  await enableRealTrading(token);
}

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
}

// ---------------------------------------------------------------------------------------------
// Steps

/** 1. Agent A, claimed by a new user who switches real trading on. */
async function step1AgentA(env: Env) {
  heading('1. Agent A: register, claim with a user token, real trading on');
  // The token first: a demo run with the wrong DATA_DIR stops before creating anything.
  const userId = `demo-user-${randomBytes(4).toString('hex')}`;
  const token = mintUserToken(env, userId);
  const a = await registerAgent('demo-agent-A');
  await claimWithRealTrading(token, a);
  return { agent: a as Agent, userId, token };
}

interface Market {
  marketId: string;
  yesToken: string;
  noToken: string;
}

/** 2. A fresh binary event on the emulator (never imported before, so reruns work), imported by its URL. */
async function step2ImportMarket(emulator: Emulator, a: Agent): Promise<Market> {
  heading('2. Import a Polymarket market from the emulator');
  const tag = randomBytes(3).toString('hex');
  const event = await emulatorAdmin(emulator, 'POST', '/events', {
    title: `Demo: will the acceptance flow pass (${tag})?`,
    slug: `demo-acceptance-${tag}`,
    outcomes: ['Yes', 'No'],
    prices: [0.55, 0.45],
  });
  const m = (event.markets as { slug: string; condition_id: string; token_ids: string[] }[])[0]!;
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
  return { marketId: String(imported.market_id), yesToken: m.token_ids[0]!, noToken: m.token_ids[1]! };
}

/** 3. An external wallet: linked by signature, funded on the emulator, with CLOB credentials. */
async function step3ExternalWallet(emulator: Emulator, a: Agent): Promise<ClobClient> {
  heading('3. Link an external wallet (ethers v6), fund it, register CLOB credentials');
  const wallet = Wallet.createRandom();
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

  await fundAndApprove(emulator, wallet.address, 1000);

  // Polymarket's official client derives the L2 credentials from an L1 (EIP-712) signature. Signing
  // needs no chain access, so the viem transport refuses every RPC call.
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

const trade = (agent: Agent, body: Json) =>
  api('POST', '/api/sdk/trade', { auth: agent.apiKey, body: { venue: 'polymarket', ...body } });

const tradeFields = (r: Json) => ({
  success: r.success,
  order_status: r.order_status,
  fill_status: r.fill_status,
  shares_bought: r.shares_bought,
  shares_sold: r.shares_sold,
  cost: r.cost,
  order_id: r.order_id,
  ...(r.success ? {} : { error: r.error, error_code: r.error_code, hint: r.hint }),
});

/** 4. A FAK buy of YES for $10, signed by the official client; the service only relays it. */
async function step4SignedBuy(a: Agent, clob: ClobClient, market: Market) {
  heading('4. Agent A buys YES with a client-signed FAK order');
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
  expect(r.success === true && r.fill_status === 'filled', 'The signed buy did not fill.', r);
  return Number(r.shares_bought);
}

/** 5. A GTC sell far above the book rests; it is listed as open, then cancelled. */
async function step5RestingSell(a: Agent, clob: ClobClient, market: Market, sharesHeld: number) {
  heading('5. Agent A places a GTC sell that rests, lists it, cancels it');
  const size = Math.floor(sharesHeld);
  const signed = await clob.createOrder({ tokenID: market.yesToken, price: 0.95, size, side: Side.SELL });
  const r = await trade(a, {
    market_id: market.marketId,
    side: 'yes',
    action: 'sell',
    shares: size,
    order_type: 'GTC',
    signed_order: signed,
  });
  show(tradeFields(r));
  expect(r.success === true && r.order_status === 'live', 'The GTC sell at 0.95 did not rest.', r);
  const orderId = String(r.order_id);

  const open = await api('GET', '/api/sdk/orders/open', { auth: a.apiKey });
  const orders = open.orders as Json[];
  show({
    count: open.count,
    orders: orders.map((o) => ({
      order_id: o.order_id,
      trade_type: o.trade_type,
      side: o.side,
      price: o.price,
      shares: o.shares,
      status: o.status,
    })),
  });
  expect(
    orders.some((o) => o.order_id === orderId),
    `The resting order ${orderId} is not among the open orders.`,
    open,
  );

  const canceled = await api('DELETE', `/api/sdk/orders/${orderId}`, { auth: a.apiKey });
  show({ canceled: canceled.canceled, not_canceled: canceled.not_canceled });
  expect((canceled.canceled as string[]).includes(orderId), 'The cancel did not cancel the order.', canceled);

  const after = await api('GET', '/api/sdk/orders/open', { auth: a.apiKey });
  show({ count: after.count });
  expect(after.count === 0, 'Open orders are not empty after the cancel.', after);
}

/**
 * 6. Agent B trades through a managed wallet: the service holds the key and signs. The wallet is the
 * human's, shared by all their agents, so after A's link user 1 trades from the external wallet; B
 * then belongs to a second user, whose claim creates a managed wallet.
 */
async function step6ManagedWalletAgent(
  env: Env,
  emulator: Emulator,
  user1: { userId: string; token: string },
  market: Market,
) {
  heading('6. Agent B buys through its human’s managed wallet (no signed_order)');
  const user1Settings = await api('GET', '/api/sdk/settings', { auth: user1.token });
  show({
    user: user1.userId,
    wallet_address: user1Settings.wallet_address,
    wallet_ownership: user1Settings.wallet_ownership,
  });
  const sameUser = user1Settings.wallet_ownership === 'native';
  const userId = sameUser ? user1.userId : `demo-user-${randomBytes(4).toString('hex')}`;
  console.log(
    sameUser
      ? `  ${user1.userId} still trades from the managed wallet: B is claimed by the same user.`
      : `  ${user1.userId}'s trading wallet is A's external one (the link replaced the managed wallet for all their agents): B is claimed by a second user, ${userId}.`,
  );
  const token = sameUser ? user1.token : mintUserToken(env, userId);
  const b = await registerAgent('demo-agent-B');
  await claimWithRealTrading(token, b);

  const me = await api('GET', '/api/sdk/agents/me', { auth: b.apiKey });
  show({ claimed: me.claimed, wallet_address: me.wallet_address, wallet_ownership: me.wallet_ownership });
  expect(
    me.wallet_ownership === 'native' && typeof me.wallet_address === 'string',
    'B’s human has no managed trading wallet after the claim.',
    me,
  );
  await fundAndApprove(emulator, String(me.wallet_address), 500);

  const r = await trade(b, { market_id: market.marketId, side: 'no', amount: 12 });
  show(tradeFields(r));
  expect(r.success === true && r.fill_status === 'filled', 'The managed-wallet buy did not fill.', r);
  return b as Agent;
}

/** 7. What each agent holds on Polymarket, and its portfolio summary. */
async function step7Holdings(agent: Agent) {
  heading(`7. ${agent.name}: Polymarket positions and portfolio`);
  const positions = await api('GET', '/api/sdk/positions?venue=polymarket', { auth: agent.apiKey });
  const rows = positions.positions as Json[];
  for (const p of rows) {
    show({
      market_id: p.market_id,
      venue: p.venue,
      side: p.side,
      shares_yes: p.shares_yes,
      shares_no: p.shares_no,
      current_price: p.current_price,
      current_value: p.current_value,
      cost_basis: p.cost_basis,
      unrealized_pnl: p.unrealized_pnl,
    });
  }
  console.log(
    "      (current_price is the market's YES price; current_value marks each side at its own price)",
  );
  show({
    positions: rows.length,
    total_value: positions.total_value,
    polymarket_pnl: positions.polymarket_pnl,
  });
  expect(
    rows.some((p) => p.venue === 'polymarket' && Number(p.shares_yes) + Number(p.shares_no) > 0),
    `${agent.name} shows no Polymarket position.`,
    positions,
  );

  const portfolio = await api('GET', '/api/sdk/portfolio', { auth: agent.apiKey });
  show({
    positions_count: portfolio.positions_count,
    total_exposure: portfolio.total_exposure,
    sim_balance: portfolio.sim_balance,
    balance_usdc: portfolio.balance_usdc,
    pnl_total: portfolio.pnl_total,
    polymarket: portfolio.polymarket,
    total: portfolio.total,
  });
  // Shown, not failed: the acceptance flow asks for the positions above; this is for the reader.
  if (portfolio.polymarket === null) {
    console.log(
      `  note: the portfolio's per-venue "polymarket" block is null although ${rows.length} Polymarket position(s) are held`,
    );
  }
}

async function main() {
  const env = loadEnv();
  console.log(`Polymarket trading demo against ${baseUrl}`);
  heading('0. Find the Polymarket emulator');
  const emulator = await findEmulator(env);
  console.log(`  emulator admin ${emulator.adminUrl}, CLOB ${emulator.clobUrl}`);

  const { agent: a, ...user1 } = await step1AgentA(env);
  const market = await step2ImportMarket(emulator, a);
  const clob = await step3ExternalWallet(emulator, a);
  const shares = await step4SignedBuy(a, clob, market);
  await step5RestingSell(a, clob, market, shares);
  const b = await step6ManagedWalletAgent(env, emulator, user1, market);
  await step7Holdings(a);
  await step7Holdings(b);
  console.log('\nDemo complete: every step answered as expected.');
}

main().catch((err: unknown) => {
  if (err instanceof DemoFailure || err instanceof ConfigError) {
    console.error(`\nDEMO FAILED: ${err.message}`);
  } else {
    console.error('\nDEMO FAILED (unexpected error):', err);
  }
  process.exit(1);
});
