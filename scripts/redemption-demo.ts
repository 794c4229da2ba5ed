// `npm run demo:redemption -- [--base-url <url>] [--emulator <admin url>]`: the redemption
// acceptance flow of issue 13, step by step, against a running `VENUES=emulated npm start`.
//   A. An external wallet checks its approvals, signs the missing ones and sends them through the
//      service's relay, buys with a client-signed order, and once the market resolves redeems with
//      POST /api/sdk/redeem (unsigned_tx) + POST /api/sdk/wallet/broadcast-tx + POST /api/sdk/redeem/report.
//   B. A managed wallet (auto_redeem_enabled, the default) buys, the market resolves, and the
//      auto-redeem job redeems it without any call.
// Each request is printed with its HTTP status and the fields that matter; the first unexpected
// answer stops the demo with exit code 1. Run it with the service's DATA_DIR in the environment,
// as `npm run demo:polymarket` (user tokens, operator token; `--emulator` skips the venue look-up).
//
// Waiting: the service sees a resolution at its next check-resolutions run (every
// RESOLUTION_CHECK_SECONDS, 60 s by default) and auto-redeem runs every minute, so a run takes a
// few minutes; `--wait-seconds <n>` (default 240) bounds each wait.
import { AssetType } from '@polymarket/clob-client-v2';
import type { Wallet } from 'ethers';
import type { Env } from '../shared/infra/config/env.js';
import {
  api,
  arg,
  baseUrl,
  claimWithRealTrading,
  emulatorAdmin,
  expect,
  findEmulator,
  heading,
  importFreshMarket,
  linkNewWallet,
  newUser,
  positionFields,
  positionIn,
  registerAgent,
  registerClobCredentials,
  request,
  runDemo,
  show,
  trade,
  matched,
  tradeFields,
  waitFor,
  waitResolved,
  type Agent,
  type Emulator,
  type Json,
  type Market,
  signedBuy,
} from './demo-support.js';

const waitMs = Number(arg('wait-seconds') ?? 240) * 1000;

/** redeemPositions(bytes32,uint256[]) of the collateral adapters (polymarket.md §8.4). */
const REDEEM_SELECTOR = '0x01b7037c';

// ---------------------------------------------------------------------------------------------
// On Polygon through the service: the RPC proxy, client-side signing, the relay

/** `POST /api/rpc/polygon`, the authenticated JSON-RPC proxy; a JSON-RPC error stops the demo. */
async function rpc(agent: Agent, method: string, params: unknown[] = [], quiet = false): Promise<unknown> {
  const r = await request(`${baseUrl}/api/rpc/polygon`, `/api/rpc/polygon ${method}`, 'POST', {
    auth: agent.apiKey,
    body: { jsonrpc: '2.0', method, params, id: 1 },
    quiet,
  });
  expect(r.error === undefined || r.error === null, `The RPC proxy answered an error to ${method}.`, r);
  return r.result;
}

interface UnsignedTx {
  to: string;
  data: string;
  chainId: number;
  kind?: string;
}

/**
 * Signs a transaction of the service as the official client does: pending nonce, gas price and gas
 * estimate (× 1.3) read through the proxy, a legacy EIP-155 transaction.
 */
async function signAsClient(agent: Agent, wallet: Wallet, tx: UnsignedTx): Promise<string> {
  const nonce = Number(await rpc(agent, 'eth_getTransactionCount', [wallet.address, 'pending']));
  const gasPrice = BigInt((await rpc(agent, 'eth_gasPrice')) as string);
  const gas = BigInt(
    (await rpc(agent, 'eth_estimateGas', [{ from: wallet.address, to: tx.to, data: tx.data }])) as string,
  );
  const gasLimit = (gas * 13n) / 10n;
  show({ nonce, gas_price_gwei: Number(gasPrice / 10n ** 9n), gas_limit: Number(gasLimit) });
  return wallet.signTransaction({
    type: 0,
    chainId: tx.chainId,
    to: tx.to,
    data: tx.data,
    value: 0,
    nonce,
    gasPrice,
    gasLimit,
  });
}

/** `POST /api/sdk/wallet/broadcast-tx`; the hash of the relayed transaction. */
async function relay(agent: Agent, signedTx: string, kind: string): Promise<string> {
  const r = await api('POST', '/api/sdk/wallet/broadcast-tx', {
    auth: agent.apiKey,
    body: { signed_tx: signedTx },
  });
  show({ success: r.success, tx_hash: r.tx_hash, status: r.status, kind: r.kind, error: r.error });
  expect(r.success === true && r.kind === kind, `The relay did not send the ${kind} transaction.`, r);
  return String(r.tx_hash);
}

/** Until the chain has a receipt for `hash` (read through the proxy) and the service's record says mined. */
async function waitMined(agent: Agent, hash: string) {
  const receipt = (await waitFor(
    `${hash.slice(0, 10)}… is mined`,
    () => rpc(agent, 'eth_getTransactionReceipt', [hash], true),
    (r) => r !== null && r !== undefined,
    { timeoutMs: 60_000, everyMs: 1000 },
  )) as Json;
  console.log('  POST   /api/rpc/polygon eth_getTransactionReceipt → HTTP 200');
  show({
    status: receipt.status,
    block_number: Number(receipt.blockNumber),
    gas_used: Number(receipt.gasUsed),
  });
  expect(receipt.status === '0x1', `Transaction ${hash} reverted.`, receipt);
  const record = await waitFor(
    'the service has followed it to its receipt',
    async () =>
      (
        (await api('GET', '/api/sdk/wallet/broadcasts?limit=50', { auth: agent.apiKey, quiet: true }))
          .broadcasts as Json[]
      ).find((b) => b.tx_hash === hash),
    (b) => b?.status === 'mined' || b?.status === 'reverted',
    { timeoutMs: 60_000, everyMs: 1000 },
  );
  console.log('  GET    /api/sdk/wallet/broadcasts → HTTP 200');
  show({ tx_hash: record?.tx_hash, kind: record?.kind, status: record?.status });
  expect(record?.status === 'mined', `The service recorded ${hash} as ${record?.status}.`, record);
}

// ---------------------------------------------------------------------------------------------
// Reading state

async function pusdOf(emulator: Emulator, address: string): Promise<number> {
  const ledger = await emulatorAdmin(emulator, 'GET', `/wallets/${address}`);
  const operators = Object.values(ledger.approved_for_all as Record<string, boolean>);
  show({
    pusd: ledger.pusd,
    approved_for_all: `${operators.filter(Boolean).length} of ${operators.length} CTF operators`,
  });
  return Number(ledger.pusd);
}

/** Resolves YES on the emulator, then waits for the service's check-resolutions job to see it. */
async function resolveYes(emulator: Emulator, agent: Agent, market: Market) {
  const resolved = await emulatorAdmin(emulator, 'POST', `/markets/${market.conditionId}/resolve`, {
    outcome: 'yes',
  });
  // Gamma's market shape: closed, the final prices, UMA's resolution status.
  show({
    closed: resolved.closed,
    outcomePrices: resolved.outcomePrices,
    umaResolutionStatus: resolved.umaResolutionStatus,
  });
  await waitResolved(agent, market.marketId, waitMs);
}

// ---------------------------------------------------------------------------------------------
// A. External wallet

async function externalWalletFlow(env: Env, emulator: Emulator) {
  heading('A1. Agent A: register, claim with a user token, real trading on');
  const user = newUser(env);
  const a = await registerAgent('demo-redeem-A');
  await claimWithRealTrading(user.token, a);

  heading('A2. Link a fresh ethers wallet (challenge + signature), register CLOB credentials');
  const wallet = await linkNewWallet(a);
  const clob = await registerClobCredentials(emulator, a, wallet);

  heading('A3. Fund it with pUSD and POL on the emulator (no approvals)');
  await emulatorAdmin(emulator, 'POST', `/wallets/${wallet.address}/fund`, { pusd: 1000 });
  const pol = await emulatorAdmin(emulator, 'POST', `/polygon/accounts/${wallet.address}/fund`, { pol: 1 });
  show({ pol: pol.pol, nonce: pol.nonce });
  await pusdOf(emulator, wallet.address);

  heading('A4. Approvals: check, sign each missing one, relay it, wait until mined, check again');
  const allowancesPath = `/api/polymarket/allowances/${wallet.address}?include_tx_params=1&no_cache=1`;
  const unset = await api('GET', allowancesPath, { auth: a.apiKey });
  const txs = unset.transactions as (UnsignedTx & { from: string; kind: string })[];
  show({ all_set: unset.all_set, missing: unset.missing, transactions: txs.length });
  expect(unset.all_set === false && txs.length > 0, 'A new wallet should need approvals.', unset);
  const approvals: string[] = [];
  for (const [i, tx] of txs.entries()) {
    console.log(`  approval ${i + 1}/${txs.length}: ${tx.kind} → ${tx.to} (${tx.data.slice(0, 10)})`);
    expect(tx.from === wallet.address, 'The approval is not from the linked wallet.', tx);
    const hash = await relay(a, await signAsClient(a, wallet, tx), tx.kind);
    await waitMined(a, hash);
    approvals.push(hash);
  }
  const set = await api('GET', allowancesPath, { auth: a.apiKey });
  show({ all_set: set.all_set, missing: set.missing, transactions: (set.transactions as unknown[]).length });
  expect(set.all_set === true, 'Approvals are still missing after the relayed transactions mined.', set);
  // After approving, a client asks the CLOB to refresh its view of the wallet (polymarket.md §8.3).
  await clob.updateBalanceAllowance({ asset_type: AssetType.COLLATERAL });
  console.log('  official client updateBalanceAllowance(COLLATERAL) done');

  heading('A5. Import a fresh emulator market, buy YES with a client-signed FAK order');
  const market = await importFreshMarket(emulator, a, {
    question: 'Demo: will the external wallet redeem',
    slug: 'demo-redeem-external',
  });
  const shares = await signedBuy(a, clob, market);

  heading('A6. Resolve the market YES on the emulator; the service picks it up');
  await resolveYes(emulator, a, market);
  const before = await positionIn(a, market.marketId, 'polymarket');
  show(positionFields(before));
  expect(
    before?.redeemable === true && before.redeemable_side === 'yes',
    'The position is not redeemable.',
    before,
  );

  heading(
    'A7. Redeem: POST /api/sdk/redeem → unsigned_tx, signed, relayed, mined (settled from its receipt), reported',
  );
  const pusdBefore = await pusdOf(emulator, wallet.address);
  const r = await api('POST', '/api/sdk/redeem', {
    auth: a.apiKey,
    body: { market_id: market.marketId, side: 'yes' },
  });
  const utx = r.unsigned_tx as (UnsignedTx & { from: string; gas: number }) | undefined;
  show({
    success: r.success,
    status: r.status,
    payout: r.payout,
    already_redeemed: r.already_redeemed,
    unsigned_tx: utx && {
      to: utx.to,
      selector: utx.data.slice(0, 10),
      from: utx.from,
      gas: utx.gas,
      chainId: utx.chainId,
    },
  });
  expect(r.success === true && r.status === 'prepared' && utx, 'No unsigned_tx for the external wallet.', r);
  expect(
    utx.data.startsWith(REDEEM_SELECTOR) && utx.from === wallet.address && utx.chainId === 137,
    'The unsigned_tx is not a redemption from this wallet on chain 137.',
    utx,
  );
  const hash = await relay(a, await signAsClient(a, wallet, utx), 'redeem');
  await waitMined(a, hash);
  const report = { market_id: market.marketId, side: 'yes', tx_hash: hash };
  const reported = await api('POST', '/api/sdk/redeem/report', { auth: a.apiKey, body: report });
  show({
    recorded: reported.recorded,
    positions_settled: reported.positions_settled,
    payout: reported.payout,
  });
  // The relay linked the redemption to its market, so its receipt settles it on its own: the report
  // finds it settled (recorded: false), or, when it wins the race with the receipt, settles it.
  expect(
    reported.success === true && reported.positions_settled === (reported.recorded ? 1 : 0),
    'The report answered neither a settlement nor an already settled redemption.',
    reported,
  );
  const replay = await api('POST', '/api/sdk/redeem/report', { auth: a.apiKey, body: report });
  show({ recorded: replay.recorded, positions_settled: replay.positions_settled });
  expect(replay.recorded === false, 'The replayed report was recorded again.', replay);

  heading('A8. After: the position is settled, the pUSD balance rose by the payout');
  const after = await positionIn(a, market.marketId, 'polymarket');
  show(positionFields(after));
  expect(after?.redeemable === false && after.status === 'settled', 'The position is not settled.', after);
  const pusdAfter = await pusdOf(emulator, wallet.address);
  checkPayout('A (external wallet)', pusdBefore, pusdAfter, Number(reported.payout), shares);
  return { approvals, redeemTx: hash, shares, pusdBefore, pusdAfter };
}

function checkPayout(who: string, before: number, after: number, payout: number, shares: number) {
  const rise = Math.round((after - before) * 1e6) / 1e6;
  console.log(`  ${who}: pUSD ${before} → ${after} (+${rise}); payout ${payout}; shares bought ${shares}`);
  expect(
    Math.abs(payout - shares) < 1e-6,
    `${who}: the payout ${payout} is not the ${shares} winning shares.`,
  );
  expect(
    Math.abs(rise - payout) < 1e-6,
    `${who}: the pUSD balance rose by ${rise}, not by the payout ${payout}.`,
  );
}

// ---------------------------------------------------------------------------------------------
// B. Managed wallet, auto-redeemed

async function managedWalletFlow(env: Env, emulator: Emulator) {
  heading('B1. Agent B: another user claims it; the claim gives a managed wallet');
  const user = newUser(env);
  const b = await registerAgent('demo-redeem-B');
  await claimWithRealTrading(user.token, b);
  const settings = await api('GET', '/api/sdk/settings', { auth: user.token });
  show({ wallet_address: settings.wallet_address, wallet_ownership: settings.wallet_ownership });
  expect(typeof settings.wallet_address === 'string', 'The claim gave no managed wallet.', settings);
  const address = String(settings.wallet_address);
  const me = await api('GET', '/api/sdk/agents/me', { auth: b.apiKey });
  show({ auto_redeem_enabled: me.auto_redeem_enabled, wallet_ownership: me.wallet_ownership });
  expect(me.auto_redeem_enabled === true, 'Agent B does not have auto_redeem_enabled.', me);

  heading('B2. Fund it with pUSD and POL, approve on the emulator (admin shortcut)');
  await emulatorAdmin(emulator, 'POST', `/wallets/${address}/fund`, { pusd: 500 });
  await emulatorAdmin(emulator, 'POST', `/wallets/${address}/approve`);
  await emulatorAdmin(emulator, 'POST', `/polygon/accounts/${address}/fund`, { pol: 1 });
  await pusdOf(emulator, address);

  heading('B3. Import a fresh market, buy YES through the managed wallet (no signature)');
  const market = await importFreshMarket(emulator, b, {
    question: 'Demo: will the managed wallet be auto-redeemed',
    slug: 'demo-redeem-managed',
  });
  const r = await trade(b, { market_id: market.marketId, side: 'yes', amount: 10 });
  show(tradeFields(r));
  expect(matched(r), 'The managed-wallet buy did not fill.', r);
  const shares = Number(r.shares_bought);
  const pusdBefore = await pusdOf(emulator, address);

  heading('B4. Resolve YES on the emulator; no /redeem call: the auto-redeem job (every minute) redeems');
  await resolveYes(emulator, b, market);
  const settled = await waitFor(
    'the auto-redeem job has settled the position',
    () => positionIn(b, market.marketId, 'polymarket', true),
    (p) => p?.status === 'settled',
    { timeoutMs: waitMs },
  );
  console.log('  GET    /api/sdk/positions?venue=polymarket&status=all → HTTP 200');
  show(positionFields(settled));
  expect(settled?.redeemable === false, 'The settled position still shows as redeemable.', settled);
  const sent = (await emulatorAdmin(
    emulator,
    'GET',
    `/polygon/transactions?from=${address}`,
  )) as unknown as Json[];
  for (const t of sent)
    show({
      tx: `${String(t.hash)} selector ${String(t.selector)} ${String(t.status)} receipt_status ${String(t.receipt_status)}`,
    });
  const redeems = sent.filter((t) => t.selector === REDEEM_SELECTOR);
  expect(redeems.length === 1 && redeems[0]!.receipt_status === 1, 'Not exactly one mined redemption.', sent);

  heading('B5. After: the pUSD balance rose by the payout');
  const pusdAfter = await pusdOf(emulator, address);
  checkPayout('B (managed wallet)', pusdBefore, pusdAfter, Number(settled?.payout), shares);
  return { redeemTx: String(redeems[0]!.hash), shares, pusdBefore, pusdAfter };
}

runDemo(async (env) => {
  console.log(`Redemption demo (issue 13) against ${baseUrl}`);
  heading('0. Find the Polymarket emulator');
  const emulator = await findEmulator(env);
  console.log(`  emulator admin ${emulator.adminUrl}, CLOB ${emulator.clobUrl}`);
  const polygon = await emulatorAdmin(emulator, 'GET', '/polygon');
  show({ chain_id: polygon.chain_id, mining: polygon.mining });

  const a = await externalWalletFlow(env, emulator);
  const b = await managedWalletFlow(env, emulator);

  heading('Summary');
  show({
    external_approvals: a.approvals,
    external_redeem_tx: a.redeemTx,
    external_shares: a.shares,
    external_pusd: `${a.pusdBefore} → ${a.pusdAfter}`,
    managed_redeem_tx: b.redeemTx,
    managed_shares: b.shares,
    managed_pusd: `${b.pusdBefore} → ${b.pusdAfter}`,
  });
  console.log('\nDemo complete: every step answered as expected.');
});
