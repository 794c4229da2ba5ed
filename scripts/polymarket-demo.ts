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
import { ClobClient, Side } from '@polymarket/clob-client-v2';
import type { Env } from '../shared/infra/config/env.js';
import {
  api,
  baseUrl,
  claimWithRealTrading,
  expect,
  findEmulator,
  fundAndApprove,
  fundOnly,
  heading,
  importFreshMarket,
  linkNewWallet,
  mintUserToken,
  newUser,
  registerAgent,
  registerClobCredentials,
  runDemo,
  show,
  trade,
  matched,
  tradeFields,
  type Agent,
  type Emulator,
  type Json,
  type Market,
  signedBuy,
} from './demo-support.js';

// ---------------------------------------------------------------------------------------------
// Steps

/** 1. Agent A, claimed by a new user who switches real trading on. */
async function step1AgentA(env: Env) {
  heading('1. Agent A: register, claim with a user token, real trading on');
  // The token first: a demo run with the wrong DATA_DIR stops before creating anything.
  const { userId, token } = newUser(env);
  const a = await registerAgent('demo-agent-A');
  await claimWithRealTrading(token, a);
  return { agent: a as Agent, userId, token };
}

/** 2. A fresh binary event on the emulator (never imported before, so reruns work), imported by its URL. */
async function step2ImportMarket(emulator: Emulator, a: Agent): Promise<Market> {
  heading('2. Import a Polymarket market from the emulator');
  return importFreshMarket(emulator, a, {
    question: 'Demo: will the acceptance flow pass',
    slug: 'demo-acceptance',
  });
}

/** 3. An external wallet: linked by signature, funded on the emulator, with CLOB credentials. */
async function step3ExternalWallet(emulator: Emulator, a: Agent): Promise<ClobClient> {
  heading('3. Link an external wallet (ethers v6), fund it, register CLOB credentials');
  const wallet = await linkNewWallet(a);
  await fundAndApprove(emulator, wallet.address, 1000);
  // Polymarket's official client derives the L2 credentials from an L1 (EIP-712) signature.
  return registerClobCredentials(emulator, a, wallet);
}

/** 4. A FAK buy of YES for $10, signed by the official client; the service only relays it. */
async function step4SignedBuy(a: Agent, clob: ClobClient, market: Market) {
  heading('4. Agent A buys YES with a client-signed FAK order');
  return signedBuy(a, clob, market);
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
  // Funded with pUSD only: the service sets the managed wallet's approvals before its first order.
  await fundOnly(emulator, String(me.wallet_address), 500);

  const r = await trade(b, { market_id: market.marketId, side: 'no', amount: 12 });
  show(tradeFields(r));
  expect(matched(r), 'The managed-wallet buy did not fill.', r);
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

runDemo(async (env) => {
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
});
