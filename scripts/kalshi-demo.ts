// `npm run demo:kalshi -- [--base-url <url>] [--kalshi <admin url>] [--wait-seconds <n>]
// [--fresh-event] [--manual-fill]`: the Kalshi acceptance flow of issue 14, step by step, against a
// running `VENUES=emulated npm start`:
// an agent claimed with real trading on imports a Kalshi event by its kalshi.com URL, registers a new
// @solana/web3.js wallet (bot_solana_wallet as the Python client sends it, then the signed-challenge
// proof), which the emulator KYC-verifies and funds; it quotes a buy, signs the quoted v0
// VersionedTransaction locally, submits it, and follows it until GET /api/sdk/trades shows it filled
// and GET /api/sdk/positions the position. It also buys on sim in the same market; then the market is
// finalized YES on the emulator, the service resolves it and settles the sim position, and the agent
// redeems its winning contracts at $1 (a sell quote, signed and submitted like the buy).
// Each request is printed with its HTTP status and the fields that matter; the first unexpected
// answer stops the demo with exit code 1. Run it with the service's DATA_DIR in the environment, as
// the other demos (user tokens, operator token; `--kalshi` skips the venue look-up).
//
// The event: the emulator's fixture KXHIGHNY-26FEB19 (five temperature brackets). The demo trades
// its most likely bracket still open in the service; once earlier runs against the same DATA_DIR
// have resolved them all (or with `--fresh-event`), it creates a fresh event of the same shape on the
// emulator instead and imports that by its URL.
//
// Waiting: the service sees a resolution at its next check-resolutions run (every
// RESOLUTION_CHECK_SECONDS, 60 s by default); `--wait-seconds <n>` (default 240) bounds each wait.
import { createPrivateKey, randomBytes, sign } from 'node:crypto';
import { Keypair, VersionedTransaction } from '@solana/web3.js';
import { toBase58 } from '../shared/util/base58.js';
import { USDC_MINT } from '../shared/domains/venues/dflow/dflow-trading.js';
import {
  api,
  arg,
  baseUrl,
  claimWithRealTrading,
  emulatorAdmin,
  expect,
  findKalshiEmulator,
  flag,
  heading,
  newUser,
  positionFields,
  positionIn,
  registerAgent,
  runDemo,
  show,
  tradeFields,
  waitFor,
  waitResolved,
  type Agent,
  type Json,
  type KalshiEmulator,
} from './demo-support.js';

const waitMs = Number(arg('wait-seconds') ?? 240) * 1000;

/** The emulator's multi-bracket fixture event and its page on kalshi.com (series / title slug / event). */
const FIXTURE_EVENT_URL = 'https://kalshi.com/markets/kxhighny/highest-temperature-in-nyc/kxhighny-26feb19';

/** USDC spent on the Kalshi buy, and $SIM on the sim buy in the same market. */
const KALSHI_USDC = 10;
const SIM_AMOUNT = 25;

interface KalshiMarket {
  marketId: string;
  ticker: string;
  outcome: string | null;
}

// ---------------------------------------------------------------------------------------------
// Import

/** POST /api/sdk/markets/import/kalshi with an event URL; the imported rows. */
async function importEvent(a: Agent, url: string) {
  const r = await api('POST', '/api/sdk/markets/import/kalshi', {
    auth: a.apiKey,
    body: { kalshi_url: url },
  });
  show({
    kalshi_url: url,
    status: r.status,
    event_id: r.event_id,
    event_name: r.event_name,
    markets_imported: r.markets_imported,
    markets_skipped: r.markets_skipped,
    import_source: r.import_source,
  });
  expect(r.success === true && Array.isArray(r.markets), 'The import did not succeed.', r);
  const rows = r.markets as Json[];
  for (const m of rows)
    console.log(
      `      · ${String(m.kalshi_ticker)}  "${String(m.outcome_name)}"  p=${String(m.current_probability)}  ${String(m.status)}  market_id=${String(m.market_id)}`,
    );
  expect(rows.length > 1, 'An event import should list each of its outcomes.', r);
  return rows;
}

/** The most likely imported outcome the service still shows active (earlier runs resolve theirs). */
async function activeOutcome(a: Agent, rows: Json[]): Promise<KalshiMarket | null> {
  const byPrice = [...rows].sort((x, y) => Number(y.current_probability) - Number(x.current_probability));
  for (const row of byPrice) {
    if (row.status === 'resolved') continue;
    const m = (await api('GET', `/api/sdk/markets/${String(row.market_id)}`, { auth: a.apiKey, quiet: true }))
      .market as Json;
    if (m.status === 'active')
      return {
        marketId: String(row.market_id),
        ticker: String(row.kalshi_ticker),
        outcome: (row.outcome_name as string | null) ?? null,
      };
  }
  return null;
}

/** A new event shaped like the fixture (brackets, one series) on the emulator; its kalshi.com URL. */
async function freshEvent(kalshi: KalshiEmulator): Promise<string> {
  const tag = randomBytes(3).toString('hex').toUpperCase();
  const e = await emulatorAdmin(kalshi, 'POST', '/events', {
    title: `Demo: highest temperature in NYC (${tag})?`,
    series_ticker: `KXDEMO${tag}`,
    markets: [
      { yes_sub_title: '40° or below', yes: 0.2 },
      { yes_sub_title: '41° to 44°', yes: 0.5 },
      { yes_sub_title: '45° or above', yes: 0.3 },
    ],
  });
  show({ event_ticker: e.event_ticker, series_ticker: e.series_ticker });
  return `https://kalshi.com/markets/${String(e.series_ticker).toLowerCase()}/demo-highest-temperature/${String(e.event_ticker).toLowerCase()}`;
}

// ---------------------------------------------------------------------------------------------
// The Solana wallet

/** ed25519 signature of `message` by the Keypair (Node's crypto over its 32-byte seed). */
function signMessage(key: Keypair, message: Uint8Array): Buffer {
  const pkcs8 = Buffer.concat([
    Buffer.from('302e020100300506032b657004220420', 'hex'),
    Buffer.from(key.secretKey.subarray(0, 32)),
  ]);
  return sign(null, message, createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }));
}

/** Registers the wallet as the Python client does, then proves it owns it with a signed challenge. */
async function registerWallet(a: Agent, wallet: Keypair) {
  const address = wallet.publicKey.toBase58();
  const settings = await api('PATCH', '/api/sdk/user/settings', {
    auth: a.apiKey,
    body: { bot_solana_wallet: address },
  });
  show({ solana_wallet_address: settings.solana_wallet_address });
  expect(settings.solana_wallet_address === address, 'The Solana wallet was not registered.', settings);

  const challenge = await api('GET', `/api/sdk/wallet/solana/challenge?address=${address}`, {
    auth: a.apiKey,
  });
  show({ nonce: challenge.nonce, expires_at: challenge.expires_at, message: challenge.message });
  const signature = signMessage(wallet, new TextEncoder().encode(String(challenge.message)));
  const verified = await api('POST', '/api/sdk/wallet/solana/verify', {
    auth: a.apiKey,
    body: { address, nonce: challenge.nonce, signature: signature.toString('base64') },
  });
  show({
    success: verified.success,
    ownership_verified: verified.ownership_verified,
    solana_wallet_address: verified.solana_wallet_address,
  });
  expect(verified.ownership_verified === true, 'The signed challenge did not prove the wallet.', verified);
}

/** GET /api/proof/status: DFlow Proof's KYC view of the wallet. */
async function proofStatus(a: Agent, address: string) {
  const r = await api('GET', `/api/proof/status?wallet=${address}`, { auth: a.apiKey });
  show({ wallet: r.wallet, verified: r.verified, verify_url: r.verify_url });
  return r;
}

async function walletBalances(kalshi: KalshiEmulator, address: string) {
  const w = await emulatorAdmin(kalshi, 'GET', `/wallets/${address}`);
  const accounts = (w.token_accounts ?? []) as Json[];
  const usdc = Number(accounts.find((t) => t.mint === USDC_MINT)?.ui_amount ?? 0);
  show({
    kyc: w.kyc,
    sol: w.sol,
    usdc,
    outcome_tokens: accounts
      .filter((t) => t.ticker)
      .map((t) => `${String(t.ui_amount)} ${String(t.ticker)} ${String(t.side).toUpperCase()}`),
  });
  return { ...w, usdc };
}

// ---------------------------------------------------------------------------------------------
// Quote, sign, submit, fill

/** POST /api/sdk/trade/kalshi/quote, as the official client sends it: a YES buy of `amount` USDC, or a sell of `shares`. */
async function quote(
  a: Agent,
  market: KalshiMarket,
  address: string,
  order: { action: 'buy'; amount: number } | { action: 'sell'; shares: number },
) {
  const q = await api('POST', '/api/sdk/trade/kalshi/quote', {
    auth: a.apiKey,
    body: {
      market_id: market.marketId,
      side: 'yes',
      action: order.action,
      amount: order.action === 'buy' ? order.amount : 0,
      shares: order.action === 'sell' ? order.shares : 0,
      wallet_address: address,
    },
  });
  show({
    success: q.success,
    quote_id: q.quote_id,
    price: q.price,
    in_amount: q.in_amount,
    out_amount: q.out_amount,
    expires_at: q.expires_at,
    wallet_ownership_verified: q.wallet_ownership_verified,
    transaction: typeof q.transaction === 'string' ? `${q.transaction.length} base64 chars` : q.transaction,
    ...(q.success ? {} : { error: q.error, error_code: q.error_code, fix: q.fix }),
  });
  expect(q.success === true && typeof q.transaction === 'string', 'The quote was refused.', q);
  return { quoteId: String(q.quote_id), transaction: q.transaction };
}

/** POST /api/sdk/trade/kalshi/submit of a signed quote; the trade as answered. */
async function submit(
  a: Agent,
  market: KalshiMarket,
  action: 'buy' | 'sell',
  quoteId: string,
  signed: string,
) {
  const submitted = await api('POST', '/api/sdk/trade/kalshi/submit', {
    auth: a.apiKey,
    body: {
      market_id: market.marketId,
      side: 'yes',
      action,
      quote_id: quoteId,
      signed_transaction: signed,
      reasoning: 'demo: Kalshi through DFlow',
      source: 'demo',
    },
  });
  show({ trade_id: submitted.trade_id, ...tradeFields(submitted) });
  expect(submitted.success === true, 'The submit was refused.', submitted);
  return submitted;
}

/** Deserializes the quoted transaction with web3.js, signs it with the wallet; base64 and its signature. */
function signQuoted(transaction: string, wallet: Keypair) {
  const tx = VersionedTransaction.deserialize(Buffer.from(transaction, 'base64'));
  const keys = tx.message.staticAccountKeys;
  show({
    version: tx.version,
    fee_payer: keys[0]?.toBase58(),
    required_signatures: tx.message.header.numRequiredSignatures,
    recent_blockhash: tx.message.recentBlockhash,
    instructions: tx.message.compiledInstructions.length,
  });
  expect(
    keys[0]?.equals(wallet.publicKey),
    'The quoted transaction is not paid by the registered wallet.',
    keys.map((k) => k.toBase58()),
  );
  tx.sign([wallet]);
  const signature = toBase58(tx.signatures[0]!);
  console.log(
    `  signed locally with the Keypair (web3.js VersionedTransaction.sign) → signature ${signature}`,
  );
  return { signed: Buffer.from(tx.serialize()).toString('base64'), signature };
}

/** Fills the order on the emulator if it is still open (the emulator fills on its own after ~2 s). */
async function fillIfOpen(kalshi: KalshiEmulator, signature: string) {
  const order = await emulatorAdmin(kalshi, 'GET', `/orders/${signature}`);
  show({ status: order.status, user: order.user });
  if (order.status === 'open' || order.status === 'pending' || order.status === 'pendingClose') {
    await emulatorAdmin(kalshi, 'POST', '/orders/fill-now', { signature });
    const filled = await emulatorAdmin(kalshi, 'GET', `/orders/${signature}`);
    show({ status: filled.status });
  } else {
    console.log(`  the order is already ${String(order.status)}: no fill-now needed`);
  }
}

/** Until GET /api/sdk/trades shows the trade filled; the row. */
async function waitTradeFilled(a: Agent, market: KalshiMarket, tradeId: string) {
  const path = `/api/sdk/trades?market_id=${market.marketId}&venue=kalshi&include_failed=true`;
  const row = await waitFor(
    `GET /api/sdk/trades shows trade ${tradeId} filled`,
    async () =>
      ((await api('GET', path, { auth: a.apiKey, quiet: true })).trades as Json[]).find(
        (t) => t.trade_id === tradeId,
      ),
    (t) => t !== undefined && t.status !== 'submitted' && t.status !== 'open',
    { timeoutMs: 60_000, everyMs: 1000 },
  );
  console.log(`  GET    ${path} → HTTP 200`);
  show({
    trade_id: row?.trade_id,
    venue: row?.venue,
    status: row?.status,
    shares: row?.shares,
    cost: row?.cost,
    price_after: row?.price_after,
    executed_at: row?.executed_at,
    ...(row?.status === 'filled' ? {} : { failure_reason: row?.failure_reason, error_code: row?.error_code }),
  });
  expect(row?.status === 'filled', 'The Kalshi trade did not fill.', row);
  return row;
}

// ---------------------------------------------------------------------------------------------

runDemo(async (env) => {
  console.log(`Kalshi demo (issue 14) against ${baseUrl}`);
  heading('0. Find the Kalshi emulator (Kalshi, DFlow, Proof, Solana RPC)');
  const kalshi = await findKalshiEmulator(env);
  console.log(`  emulator admin ${kalshi.adminUrl}, Kalshi API ${kalshi.kalshiUrl}`);
  const blocks = await emulatorAdmin(kalshi, 'GET', '/blocks');
  show(blocks);

  heading('1. Register an agent, claim it with a user token, turn real trading on');
  const user = newUser(env);
  const a = await registerAgent('demo-kalshi');
  await claimWithRealTrading(user.token, a);

  heading('2. Import a Kalshi event by its kalshi.com URL');
  const fresh = flag('fresh-event');
  let market = fresh ? null : await activeOutcome(a, await importEvent(a, FIXTURE_EVENT_URL));
  if (fresh) {
    console.log('  --fresh-event: a new event on the emulator');
    market = await activeOutcome(a, await importEvent(a, await freshEvent(kalshi)));
  } else if (!market) {
    console.log('  every outcome of the fixture event is resolved (earlier runs): a fresh event instead');
    market = await activeOutcome(a, await importEvent(a, await freshEvent(kalshi)));
  }
  expect(market, 'No imported outcome is active.');
  console.log(`  trading "${market.outcome}": ${market.ticker} (market_id ${market.marketId})`);

  heading('3. A new Solana wallet (web3.js Keypair): bot_solana_wallet, then the ownership proof');
  const wallet = Keypair.generate();
  const address = wallet.publicKey.toBase58();
  console.log(`  new Keypair ${address}`);
  await registerWallet(a, wallet);

  heading('4. KYC-verify and fund it on the emulator');
  await proofStatus(a, address);
  await emulatorAdmin(kalshi, 'POST', `/kyc/${address}`);
  await emulatorAdmin(kalshi, 'POST', `/wallets/${address}/fund`, { usdc: 1000, sol: 1 });
  const proof = await proofStatus(a, address);
  expect(proof.verified === true, 'DFlow Proof does not show the wallet verified.', proof);
  await walletBalances(kalshi, address);

  heading(`5. Quote a $${KALSHI_USDC} YES buy, sign the transaction locally, submit it`);
  const q = await quote(a, market, address, { action: 'buy', amount: KALSHI_USDC });
  const { signed, signature } = signQuoted(q.transaction, wallet);
  // --manual-fill: the emulator leaves landed orders open until fill-now (by default it fills them
  // ~2 s after landing, usually within the submit's own wait); its settings are put back after.
  const settings = flag('manual-fill') ? await emulatorAdmin(kalshi, 'GET', '/settings') : null;
  if (settings) await emulatorAdmin(kalshi, 'POST', '/settings', { fill_after_ms: null });
  let tradeId: string;
  try {
    const submitted = await submit(a, market, 'buy', q.quoteId, signed);
    tradeId = String(submitted.trade_id);

    heading('6. Fill it on the emulator; the service follows the order to its fill');
    await fillIfOpen(kalshi, signature);
  } finally {
    if (settings) await emulatorAdmin(kalshi, 'POST', '/settings', { fill_after_ms: settings.fill_after_ms });
  }
  const filled = await waitTradeFilled(a, market, tradeId);
  const shares = Number(filled?.shares);
  const held = await waitFor(
    'GET /api/sdk/positions?venue=kalshi shows the position',
    () => positionIn(a, market.marketId, 'kalshi', true),
    (p) => Number(p?.shares_yes) > 0,
    { timeoutMs: 60_000, everyMs: 1000 },
  );
  console.log('  GET    /api/sdk/positions?venue=kalshi&status=all → HTTP 200');
  show(positionFields(held));
  expect(
    Number(held?.shares_yes) === shares,
    `The position does not hold the ${shares} shares bought.`,
    held,
  );
  await walletBalances(kalshi, address);

  heading(`7. Also buy YES on sim in the same market ($SIM ${SIM_AMOUNT})`);
  const sim = await api('POST', '/api/sdk/trade', {
    auth: a.apiKey,
    body: { venue: 'sim', market_id: market.marketId, side: 'yes', amount: SIM_AMOUNT },
  });
  show(tradeFields(sim));
  expect(sim.success === true && Number(sim.shares_bought) > 0, 'The sim buy did not fill.', sim);
  const simShares = Number(sim.shares_bought);
  const balanceBefore = Number((await api('GET', '/api/sdk/agents/me', { auth: a.apiKey })).balance);
  show({ sim_balance: balanceBefore });

  heading('8. Finalize the market YES on the emulator; the service resolves it and settles sim');
  const final = await emulatorAdmin(kalshi, 'POST', `/markets/${market.ticker}/lifecycle`, {
    status: 'finalized',
    result: 'yes',
  });
  const finalMarket = final.market as Json;
  show({ ticker: finalMarket.ticker, status: finalMarket.status, result: finalMarket.result });
  const resolved = await waitResolved(a, market.marketId, waitMs);
  expect(
    resolved.outcome === 'yes' || resolved.outcome === true,
    'The market did not resolve YES.',
    resolved,
  );
  const settled = await waitFor(
    'the sim position is settled',
    () => positionIn(a, market.marketId, 'sim', true),
    (p) => p?.status === 'settled',
    { timeoutMs: waitMs },
  );
  console.log('  GET    /api/sdk/positions?venue=sim&status=all → HTTP 200');
  show(positionFields(settled));
  const balanceAfter = Number((await api('GET', '/api/sdk/agents/me', { auth: a.apiKey })).balance);
  const rise = Math.round((balanceAfter - balanceBefore) * 1e6) / 1e6;
  console.log(`  sim balance ${balanceBefore} → ${balanceAfter} (+${rise}) for ${simShares} winning shares`);
  expect(Math.abs(rise - simShares) < 0.011, `The sim payout ${rise} is not the ${simShares} shares.`);
  const after = await positionIn(a, market.marketId, 'kalshi');
  show(positionFields(after));

  heading(`9. Redeem the ${shares} winning contracts: a sell quote at $1, signed locally, submitted`);
  const usdcBefore = await walletBalances(kalshi, address);
  const r = await quote(a, market, address, { action: 'sell', shares });
  const redemption = signQuoted(r.transaction, wallet);
  const redeemed = await submit(a, market, 'sell', r.quoteId, redemption.signed);
  await fillIfOpen(kalshi, redemption.signature);
  await waitTradeFilled(a, market, String(redeemed.trade_id));
  const closed = await waitFor(
    'the Kalshi position is closed by the redemption',
    () => positionIn(a, market.marketId, 'kalshi', true),
    (p) => p?.status === 'closed' || p?.status === 'settled',
    { timeoutMs: 60_000, everyMs: 1000 },
  );
  console.log('  GET    /api/sdk/positions?venue=kalshi&status=all → HTTP 200');
  show(positionFields(closed));
  const usdcAfter = await walletBalances(kalshi, address);
  const paid = Math.round((usdcAfter.usdc - usdcBefore.usdc) * 1e6) / 1e6;
  console.log(
    `  wallet USDC ${usdcBefore.usdc} → ${usdcAfter.usdc} (+${paid}) for ${shares} winning contracts`,
  );
  expect(Math.abs(paid - shares) < 0.011, `The redemption paid ${paid}, not $1 × ${shares}.`);

  heading('Summary');
  show({
    market: `${market.ticker} (${market.marketId})`,
    quote_id: q.quoteId,
    tx_signature: signature,
    trade_id: tradeId,
    kalshi_fill: `${shares} shares for ${String(filled?.cost)} USDC`,
    kalshi_position: `${String(after?.shares_yes)} YES, ${String(after?.status)}`,
    resolution: `${String(resolved.status)} ${String(resolved.outcome)} at ${String(resolved.resolved_at)}`,
    sim_settlement: `${simShares} shares paid ${rise}, position ${String(settled?.status)}`,
    kalshi_redemption: `${shares} contracts paid ${paid} USDC, position ${String(closed?.status)}`,
  });
  console.log('\nDemo complete: every step answered as expected.');
});
