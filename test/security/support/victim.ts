import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ClobClient } from '@polymarket/clob-client-v2';
import { Keypair } from '@solana/web3.js';
import { Wallet } from 'ethers';
import { raiseRiskAlert } from '../../../shared/domains/monitors/risk-alerts.js';
import { remarkAllBoards } from '../../../shared/domains/reads/venue-boards.js';
import { checkResolutions } from '../../../shared/domains/venue-sync/check-resolutions.js';
import { reactToFills } from '../../../shared/domains/reactor/react-to-fills.js';
import { testContext } from '../../support/context.js';
import { trade } from '../../support/factories.js';
import { api, type RegisteredAgent } from '../../support/http.js';
import {
  ed25519Sign,
  importedKalshiMarket,
  quote,
  signQuoted,
  submit,
} from '../../support/kalshi-traders.js';
import { relayTx, signAsClient } from '../../support/polygon-client.js';
import {
  asAgent,
  importedMarket,
  linkExternalWallet,
  registerClobCredentials,
  setTier,
  signedBuy,
} from '../../support/polymarket-traders.js';
import { asUser } from '../../support/users.js';
import { kalshiAdmin, polymarketAdmin } from '../../support/venue-emulators.js';
import type { Fingerprint } from './fingerprints.js';

/** The victim of the cross-user pass: a human with a claimed agent (world.ts makes both). */
export interface VictimParty {
  userId: string;
  userToken: string;
  agent: RegisteredAgent;
}

/** What the cross-user pass substitutes into the attacker's requests, by parameter name. */
export interface VictimValues {
  /** Owned ids: another tenant's, so a 2xx naming them is the attacker reaching the victim's record. */
  owned: Record<string, string>;
  /** The victim's public values (its markets, addresses, skill slug): the requests aim at its data with them. */
  aimed: Record<string, string>;
  /** Values the seeding sent or was answered once, which the database keeps sealed or hashed or not at all. */
  planted: Fingerprint[];
}

/**
 * Distinctive numbers the victim sets, each unlike any default, sample or other agent's value, so
 * that finding one in the attacker's answer can only mean the victim's record was read.
 */
export const VICTIM_NUMBERS = {
  max_trades_per_day: 733,
  sdk_max_trade_amount: 87.31,
  sdk_daily_limit: 413.77,
  max_position_usd: 91.53,
  default_stop_loss_pct: 0.3713,
  default_take_profit_pct: 0.6317,
  sim_buy_amount: 7.13,
  polymarket_buy_amount: 12.34,
  monitor_stop_loss_pct: 0.4217,
  monitor_take_profit_pct: 0.5821,
  alert_threshold: 0.8713,
  automaton_budget_usd: 314.59,
  experiment_metric_value: 2.718281,
  bandit_ewm_roc: 0.0271828,
} as const;

/** A client call's answer, checked to have succeeded (a 2xx that is not `success: false`). */
function ok<R extends { status: number; body: unknown }>(what: string, res: R): R {
  const text = JSON.stringify(res.body);
  assert.ok(res.status < 300, `victim ${what}: ${res.status} ${text}`);
  assert.notEqual((res.body as { success?: unknown }).success, false, `victim ${what}: ${text}`);
  return res;
}

/** One seeding run: the victim, its distinctive tag, and what it planted. */
interface Seeding {
  v: VictimParty;
  tag: string;
  agentAuth: Record<string, string>;
  plant: (label: string, value: string | number | undefined) => void;
}

/**
 * Gives the victim a record of every kind a tenant owns, each with distinctive values, through the
 * routes a client uses (and the venue emulators): settings with a chat bridge, a linked external
 * wallet with CLOB credentials and a deposit wallet, Polymarket positions (one redeemed by a relayed
 * transaction, one open with a monitor and a risk alert), a Kalshi position from a proven Solana
 * wallet, a sim position with a monitor, a price alert, a webhook, a pending skill researched and
 * run by an automaton, an agent wallet, and the venue tallies and board rows the re-mark writes.
 */
export async function seedVictim(v: VictimParty, simMarketId: string): Promise<VictimValues> {
  const planted: Fingerprint[] = [];
  const s: Seeding = {
    v,
    tag: randomBytes(4).toString('hex'),
    agentAuth: asAgent(v.agent),
    plant: (label, value) => {
      assert.ok(value !== undefined && value !== null, `victim ${label} was not answered`);
      planted.push({ label, value });
    },
  };
  for (const [label, value] of Object.entries(VICTIM_NUMBERS)) s.plant(label, value);
  await seedSettings(s);
  const polymarket = await seedPolymarket(s);
  const kalshi = await seedKalshi(s);
  const sim = await seedSim(s, simMarketId);
  const skill = await seedSkillAndAutomaton(s);
  const reactor = await seedReactor(s);
  const agentWallet = ok(
    'agent wallet',
    await api().post('/api/sdk/agent-wallet/register').set(s.agentAuth).send({}),
  );
  const { deps } = testContext();
  // The approvals record the service keeps of a wallet it holds the key of (written before the
  // wallet's first Polymarket order): the victim's, as that trade would leave it.
  const approvedWallet = String(agentWallet.body.wallet_address);
  await deps.models.WalletApproval.create({
    _id: approvedWallet.toLowerCase(),
    userId: v.userId,
    address: approvedWallet,
    status: 'approved',
    txs: [{ key: `pusd_victim-${s.tag}`, hash: `0x${randomBytes(32).toString('hex')}` }],
    attempts: 1,
    approvedAt: new Date(),
  });
  // The remark-leaderboard job's minute: the victim's venue tallies and board rows.
  await remarkAllBoards(deps.models, deps.clock());
  return {
    owned: {
      agent_id: v.agent.agent_id,
      ...sim.owned,
      quote_id: kalshi.quoteId,
      signal_id: reactor.signalId,
    },
    aimed: {
      market_id: simMarketId,
      polymarket_market_id: polymarket.marketId,
      kalshi_market_id: kalshi.marketId,
      polymarket_url: polymarket.url,
      kalshi_ticker: kalshi.ticker,
      address: polymarket.address,
      solana_address: kalshi.address,
      agent_wallet_address: agentWallet.body.wallet_address,
      slug: skill,
      tx_hash: polymarket.txHash,
    },
    planted,
  };
}

/**
 * Reactor: a labelled whale on the watchlist, a signal of that whale's fill pending (the fill stored
 * as the fill feed stores it, the react job run), and a reaction with a reason.
 */
async function seedReactor(s: Seeding) {
  const { deps } = testContext();
  const whale = (Wallet.createRandom() as unknown as Wallet).address.toLowerCase();
  ok(
    'reactor config',
    await api()
      .patch('/api/sdk/reactor/config')
      .set(s.agentAuth)
      .send({ watchlist: [{ wallet: whale, label: `victim-whale-${s.tag}` }] }),
  );
  const market = await importedMarket(s.v.agent);
  const txHash = `0x${randomBytes(32).toString('hex')}`;
  const fillId = `${txHash}:0:taker`;
  await deps.models.VenueFill.create({
    _id: fillId,
    venue: 'polymarket',
    txHash,
    logIndex: 0,
    blockNumber: 1,
    blockHash: `0x${randomBytes(32).toString('hex')}`,
    at: new Date(),
    leg: 'taker',
    wallet: whale,
    action: 'buy',
    outcome: 'yes',
    tokenId: market.yes,
    price: 0.55,
    shares: 100,
    market: {
      externalId: market.conditionId,
      yesTokenId: market.yes,
      noTokenId: market.no,
      title: null,
      slug: null,
      outcomeLabel: 'Yes',
    },
    withdrawnAt: null,
    recordedAt: new Date(),
  });
  await reactToFills(deps, [fillId]);
  ok(
    'reactor reaction',
    await api()
      .post('/api/sdk/reactor/reactions')
      .set(s.agentAuth)
      .send({ decision: 'skipped', event_tx_hash: txHash, reason: `victim-reaction-${s.tag}` }),
  );
  await seedShock(s, market.marketId);
  return { signalId: txHash };
}

/** The shock ladder armed, and a shock pending on the victim's feed as the detector queues it. */
async function seedShock(s: Seeding, marketId: string) {
  ok(
    'shock-ladder config',
    await api().patch('/api/sdk/shock-ladder/config').set(s.agentAuth).send({ enabled: true }),
  );
  const now = new Date();
  const shockId = `${marketId}:yes:${Math.floor(now.getTime() / 1000)}`;
  await testContext().deps.models.ShockSignal.create({
    _id: `${s.v.agent.agent_id}|${shockId}`,
    agentId: s.v.agent.agent_id,
    signalId: shockId,
    shockId,
    marketId,
    side: 'yes',
    prePrice: 0.8,
    shockPrice: 0.7,
    bucketKey: 'soccer|moderate|deep|unknown|unknown',
    depths: { p50: 6, p75: 9, p90: 13, p95: 18 },
    depthSource: 'default',
    observedCount: 0,
    createdAt: now,
    expiresAt: new Date(now.getTime() + 3600_000),
  });
}

/** Limits unlike any default, and a chat bridge (its secret is answered once). Elite: agent wallets are. */
async function seedSettings(s: Seeding) {
  await setTier(s.v.userId, 'elite');
  const settings = ok(
    'settings',
    await api()
      .patch('/api/sdk/user/settings')
      .set(asUser(s.v.userToken))
      .send({
        max_trades_per_day: VICTIM_NUMBERS.max_trades_per_day,
        sdk_real_trading_enabled: true,
        sdk_max_trade_amount: VICTIM_NUMBERS.sdk_max_trade_amount,
        sdk_daily_limit: VICTIM_NUMBERS.sdk_daily_limit,
        max_position_usd: VICTIM_NUMBERS.max_position_usd,
        default_stop_loss_pct: VICTIM_NUMBERS.default_stop_loss_pct,
        default_take_profit_pct: VICTIM_NUMBERS.default_take_profit_pct,
        clawdbot_webhook_url: `http://127.0.0.1:9/victim-bridge-${s.tag}`,
        clawdbot_chat_id: `victim-chat-${s.tag}`,
        clawdbot_channel: `victim-channel-${s.tag}`,
      }),
  );
  s.plant('settings.clawdbot_webhook_secret', settings.body.clawdbot_webhook_secret);
}

/**
 * Polymarket from a linked external wallet: a buy redeemed through a relayed transaction, one open
 * with a monitor triggered into a risk alert (an external wallet is not sold for), then the
 * wallet's deposit wallet with its approvals batch.
 */
async function seedPolymarket(s: Seeding) {
  const { deps } = testContext();
  const wallet = Wallet.createRandom() as unknown as Wallet;
  await linkExternalWallet(s.v.agent, wallet);
  await polymarketAdmin('POST', `/wallets/${wallet.address}/fund`, { pusd: 1000 });
  await polymarketAdmin('POST', `/wallets/${wallet.address}/approve`);
  await polymarketAdmin('POST', `/polygon/accounts/${wallet.address}/fund`, { pol: 1 });
  const { host, signer, creds } = await registerClobCredentials(s.v.agent, wallet);
  s.plant('clob_credentials.api_key', creds.key);
  s.plant('clob_credentials.api_secret', creds.secret);
  s.plant('clob_credentials.api_passphrase', creds.passphrase);
  const trader = {
    agent: s.v.agent,
    token: s.v.userToken,
    wallet,
    clob: new ClobClient({ host, chain: 137, signer, creds }),
  };
  const redeemed = await importedMarket(s.v.agent);
  const open = await importedMarket(s.v.agent);
  ok('polymarket buy', await signedBuy(trader, redeemed, VICTIM_NUMBERS.polymarket_buy_amount));
  const openBuy = ok('polymarket buy', await signedBuy(trader, open, 10));
  // Shares to six decimals: the position's, its risk alert's, its monitor's.
  s.plant('polymarket_open_shares', openBuy.body.shares_bought);

  await polymarketAdmin('POST', `/markets/${redeemed.conditionId}/resolve`, { outcome: 'yes' });
  await checkResolutions(deps);
  const prepared = ok(
    'redeem',
    await api().post('/api/sdk/redeem').set(s.agentAuth).send({ market_id: redeemed.marketId, side: 'yes' }),
  );
  const raw = await signAsClient(s.agentAuth, wallet, prepared.body.unsigned_tx);
  const relayed = ok('redemption relay', await relayTx(s.agentAuth, raw));
  s.plant('redemption.tx_hash', relayed.body.tx_hash);

  ok(
    'polymarket monitor',
    await api()
      .post(`/api/sdk/positions/${open.marketId}/monitor?venue=polymarket`)
      .set(s.agentAuth)
      .send({ side: 'yes', stop_loss_pct: VICTIM_NUMBERS.monitor_stop_loss_pct }),
  );
  const monitor = await deps.models.PositionMonitor.findOne({
    agentId: s.v.agent.agent_id,
    marketId: open.marketId,
  }).lean();
  await raiseRiskAlert(deps, monitor!);

  const bodyless = (path: string) =>
    api().post(path).set(s.agentAuth).set('Content-Type', 'application/json');
  ok('deposit wallet upgrade', await bodyless('/api/user/wallet/external-upgrade-to-deposit-wallet'));
  const batch = ok(
    'deposit wallet approvals',
    await bodyless('/api/user/wallet/external/dw-approvals/prepare'),
  );
  const { domain, types, message } = batch.body.typed_data;
  const { EIP712Domain: _, ...signedTypes } = types;
  ok(
    'deposit wallet approvals submit',
    await api()
      .post('/api/user/wallet/external/dw-approvals/submit')
      .set(s.agentAuth)
      .send({
        signature: await wallet.signTypedData(domain, signedTypes, message),
        nonce: batch.body.nonce,
        deadline: batch.body.deadline,
        calls: batch.body.calls,
      }),
  );
  const market = await deps.models.Market.findById(open.marketId, { url: 1 }).lean();
  return {
    marketId: open.marketId,
    url: market!.url!,
    address: wallet.address,
    txHash: relayed.body.tx_hash as string,
  };
}

/** Kalshi from a Solana wallet proven by signing the challenge: KYC, funds, a quoted buy signed by the wallet. */
async function seedKalshi(s: Seeding) {
  const solana = Keypair.generate();
  const address = solana.publicKey.toBase58();
  const challenge = ok(
    'solana challenge',
    await api().get(`/api/sdk/wallet/solana/challenge?address=${address}`).set(s.agentAuth),
  );
  const signature = ed25519Sign(solana, new TextEncoder().encode(challenge.body.message));
  ok(
    'solana proof',
    await api()
      .post('/api/sdk/wallet/solana/verify')
      .set(s.agentAuth)
      .send({ address, nonce: challenge.body.nonce, signature: Buffer.from(signature).toString('base64') }),
  );
  await kalshiAdmin('POST', `/kyc/${address}`);
  await kalshiAdmin('POST', `/wallets/${address}/fund`, { usdc: 1000, sol: 1 });
  const market = await importedKalshiMarket(s.v.agent);
  const trader = { agent: s.v.agent, token: s.v.userToken, wallet: solana };
  const quoted = ok(
    'kalshi quote',
    await quote(trader, { market_id: market.marketId, side: 'yes', amount: 5.1 }),
  );
  ok(
    'kalshi submit',
    await submit(trader, {
      market_id: market.marketId,
      side: 'yes',
      action: 'buy',
      quote_id: quoted.body.quote_id,
      signed_transaction: signQuoted(quoted.body.transaction, solana),
    }),
  );
  return {
    marketId: market.marketId,
    ticker: market.ticker,
    address,
    quoteId: quoted.body.quote_id as string,
  };
}

/** Sim: a buy with everything a client may attach, a monitor, a price alert, and a webhook. */
async function seedSim(s: Seeding, marketId: string) {
  const buy = ok(
    'sim buy',
    await trade(s.v.agent, {
      market_id: marketId,
      side: 'yes',
      amount: VICTIM_NUMBERS.sim_buy_amount,
      reasoning: `victim reasoning ${s.tag}`,
      source: `victim-source-${s.tag}`,
      idempotency_key: `victim-idempotency-${s.tag}`,
      signal_data: { victim_signal: `victim-signal-${s.tag}` },
    }),
  );
  s.plant('sim_buy_shares', buy.body.shares_bought);
  ok(
    'sim monitor',
    await api().post(`/api/sdk/positions/${marketId}/monitor?venue=sim`).set(s.agentAuth).send({
      side: 'yes',
      stop_loss_pct: VICTIM_NUMBERS.monitor_stop_loss_pct,
      take_profit_pct: VICTIM_NUMBERS.monitor_take_profit_pct,
    }),
  );
  const alert = ok(
    'alert',
    await api()
      .post('/api/sdk/alerts')
      .set(s.agentAuth)
      .send({
        market_id: marketId,
        side: 'yes',
        condition: 'above',
        threshold: VICTIM_NUMBERS.alert_threshold,
        webhook_url: `http://127.0.0.1:9/victim-alert-${s.tag}`,
      }),
  );
  const secret = `victim-webhook-secret-${s.tag}`;
  s.plant('webhook.secret', secret);
  const webhook = ok(
    'webhook',
    await api()
      .post('/api/sdk/webhooks')
      .set(s.agentAuth)
      .send({ url: `http://127.0.0.1:9/victim-hook-${s.tag}`, secret }),
  );
  return {
    owned: {
      webhook_id: webhook.body.id as string,
      alert_id: alert.body.id as string,
      order_id: buy.body.trade_id as string,
    },
  };
}

/** A skill of its own still pending review (not the public catalogue), researched and run by its automaton. Its slug. */
async function seedSkillAndAutomaton(s: Seeding): Promise<string> {
  const slug = `victim-skill-${s.tag}`;
  const post = (path: string, body: object) => api().post(path).set(s.agentAuth).send(body);
  ok(
    'skill',
    await post('/api/sdk/skills', {
      slug,
      name: `Victim skill ${s.tag}`,
      description: `victim skill description ${s.tag}`,
      registry_url: `https://clawhub.ai/skills/${slug}`,
    }),
  );
  ok(
    'experiment',
    await post('/api/sdk/autoresearch/experiments', {
      skill_slug: slug,
      experiment_number: 1,
      segment: 0,
      status: 'keep',
      metric_name: `victim_metric_${s.tag}`,
      metric_value: VICTIM_NUMBERS.experiment_metric_value,
      metric_unit: `victim-unit-${s.tag}`,
      best_direction: 'higher',
      description: `victim experiment ${s.tag}`,
      commit_hash: `c0ffee${s.tag}`,
    }),
  );
  ok(
    'automaton',
    await post('/api/sdk/automaton/init', {
      budget_usd: VICTIM_NUMBERS.automaton_budget_usd,
      horizon_days: 17,
    }),
  );
  const selection = [{ slug, reason: `victim selection ${s.tag}`, score: 0.77 }];
  ok(
    'automaton cycle record',
    await post('/api/sdk/automaton/cycles', {
      cycle_num: 1,
      tier: 'elite',
      epsilon: 0.1,
      selected_skills: selection,
      tuning_hints: [{ skill: slug, issue: `victim hint ${s.tag}` }],
      config_changes: [{ slug, env: 'VICTIM_ENV', reason: `victim change ${s.tag}` }],
    }),
  );
  const arm = {
    slug,
    enabled: true,
    timesSelected: 6,
    timesRewarded: 2,
    totalPnl: 3.25,
    consecutiveZeroSignals: 1,
    signalsFoundTotal: 9,
    tradesExecutedTotal: 4,
    ewmRoc: VICTIM_NUMBERS.bandit_ewm_roc,
  };
  ok(
    'automaton cycle',
    await post('/api/sdk/automaton/cycle', {
      active_skills: [slug],
      cycle_number: 2,
      selection_meta: selection,
      bandit_arms: [arm],
    }),
  );
  return slug;
}
