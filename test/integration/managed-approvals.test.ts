import assert from 'node:assert/strict';
import { Wallet } from 'ethers';
import { readAllowances } from '../../shared/domains/venues/polymarket/onchain/allowances.js';
import { managedWalletApprovals } from '../../shared/domains/venues/polymarket/onchain/managed-approvals.js';
import { managedSigner } from '../../shared/domains/wallets/managed-wallet.js';
import { testContext } from '../support/context.js';
import { fundGasSponsor } from '../support/hooks.js';
import { api } from '../support/http.js';
import { claimedWithRealTrading, importedMarket, polymarketTrade } from '../support/polymarket-traders.js';
import { asUser } from '../support/users.js';
import { polymarketAdmin } from '../support/venue-emulators.js';

/**
 * A claimed human's managed wallet trades at once: the service sets its trading approvals itself
 * before its first order (onchain/managed-approvals.ts), once, with the gas paid by the service's
 * sponsor. Nothing here approves through the emulator's admin door: the wallet is only funded.
 */

/** A claimed agent whose human's managed wallet holds 1,000 pUSD and nothing else (no POL, no approvals). */
async function fundedManagedWallet() {
  const { agent, token } = await claimedWithRealTrading();
  const settings = await api().get('/api/sdk/settings').set(asUser(token)).expect(200);
  assert.equal(settings.body.wallet_ownership, 'native', JSON.stringify(settings.body));
  const address = settings.body.wallet_address as string;
  await polymarketAdmin('POST', `/wallets/${address}/fund`, { pusd: 1000 });
  return { agent, token, address };
}

const models = () => testContext().deps.models;
const approvalTxs = (address: string) =>
  models().TxBroadcast.countDocuments({ sender: address, kind: { $regex: '^approve' } });
const gasTopUps = (address: string) =>
  models().TxBroadcast.countDocuments({ to: address, kind: 'gas-top-up' });
const approvalState = (address: string) => models().WalletApproval.findById(address.toLowerCase()).lean();

/** Whether the chain has every approval the official client sets (GET /api/polymarket/allowances's `all_set`). */
const allSetOnChain = async (address: string) =>
  (await readAllowances(testContext().deps, address, { noCache: true, includeTxParams: false })).all_set;

const sponsorAddress = () => new Wallet(testContext().env.POLYGON_GAS_SPONSOR_KEY!).address;

const buy = (agent: Parameters<typeof polymarketTrade>[0], marketId: string, amount = 10) =>
  polymarketTrade(agent, { market_id: marketId, side: 'yes', amount }).expect(200);

describe('Managed wallets set their own approvals before their first trade #integration', function () {
  this.timeout(120_000);

  before(async () => {
    // Another file may have reset the emulated chain: the operator's gas tank holds POL again.
    await fundGasSponsor(testContext().polymarket.adminUrl, sponsorAddress());
  });

  afterEach(async () => {
    await polymarketAdmin('POST', '/polygon/mining', { mode: 'instant' });
  });

  it('when a managed wallet holding only pUSD buys, then the service sets its twelve approvals, the buy fills, and a second buy sends none', async () => {
    const t = await fundedManagedWallet();
    const m = await importedMarket(t.agent);
    assert.equal(await allSetOnChain(t.address), false, 'no approval before the first trade');

    const first = await buy(t.agent, m.marketId);
    assert.equal(first.body.success, true, JSON.stringify(first.body));
    assert.ok(first.body.shares_bought > 0, JSON.stringify(first.body));
    assert.equal(await allSetOnChain(t.address), true);
    assert.equal(await approvalTxs(t.address), 12, 'the twelve approvals of the official client');
    assert.equal(await gasTopUps(t.address), 1, 'the sponsor paid their gas once');
    const state = await approvalState(t.address);
    assert.equal(state?.status, 'approved', JSON.stringify(state));
    assert.equal(state?.txs.length, 12);

    // The operator console lists the wallet as approved.
    const consolePage = await api()
      .get('/admin/venues')
      .set('Authorization', `Bearer ${testContext().operatorToken}`)
      .expect(200);
    const row = consolePage.text.split('<tr>').find((r) => r.includes(t.address));
    assert.ok(row, 'the managed wallet is listed');
    assert.match(row, /<span class="ok"\s*>approved<\/span/);

    const second = await buy(t.agent, m.marketId);
    assert.equal(second.body.success, true, JSON.stringify(second.body));
    assert.equal(await approvalTxs(t.address), 12, 'no new approval transaction');
    assert.equal(await gasTopUps(t.address), 1);
  });

  it('when three first trades of one managed wallet arrive at once, then its approvals are set once and every trade fills', async () => {
    const t = await fundedManagedWallet();
    const m = await importedMarket(t.agent);
    const answers = await Promise.all([5, 6, 7].map((amount) => buy(t.agent, m.marketId, amount)));
    for (const a of answers) assert.equal(a.body.success, true, JSON.stringify(a.body));
    assert.equal(await approvalTxs(t.address), 12);
    assert.equal(await gasTopUps(t.address), 1);
    assert.equal((await approvalState(t.address))?.status, 'approved');
  });

  it('when three workers set one managed wallet’s approvals at the same moment, then one sends them and the others wait for it', async () => {
    const t = await fundedManagedWallet();
    const { deps } = testContext();
    const userId = (await models().Wallet.findOne({ 'managed.address': t.address }, { _id: 1 }).lean())!._id;
    const signer = (await managedSigner(deps, userId))!;
    const answers = await Promise.all([1, 2, 3].map(() => managedWalletApprovals(deps, userId, signer)));
    assert.deepEqual(answers, [null, null, null], JSON.stringify(answers));
    assert.equal(await approvalTxs(t.address), 12);
    assert.equal(await gasTopUps(t.address), 1);
    assert.equal(await allSetOnChain(t.address), true);
  });

  it('when the approvals are not mined yet, then the trade is refused retryably, and once they are mined the next trade fills without sending them again', async () => {
    const t = await fundedManagedWallet();
    const m = await importedMarket(t.agent);
    await polymarketAdmin('POST', '/polygon/mining', { mode: 'manual' });

    const waiting = await buy(t.agent, m.marketId);
    assert.equal(waiting.body.success, false, JSON.stringify(waiting.body));
    assert.equal(waiting.body.error_code, 'wallet_approvals_pending', JSON.stringify(waiting.body));
    assert.equal(waiting.body.retryable, true);
    assert.match(waiting.body.hint, /again/);
    assert.equal((await approvalState(t.address))?.status, 'pending');

    // The sponsor's top-up is in the pool; mining it lets the next attempt send the approvals.
    await polymarketAdmin('POST', '/polygon/mine');
    const sent = await buy(t.agent, m.marketId);
    assert.equal(sent.body.error_code, 'wallet_approvals_pending', JSON.stringify(sent.body));
    assert.equal(await approvalTxs(t.address), 12, 'sent once, pending');
    // Asked again while they are in the pool: they are followed, not signed a second time.
    const again = await buy(t.agent, m.marketId);
    assert.equal(again.body.error_code, 'wallet_approvals_pending', JSON.stringify(again.body));
    assert.equal(await approvalTxs(t.address), 12, 'still the same twelve');

    await polymarketAdmin('POST', '/polygon/mine');
    const filled = await buy(t.agent, m.marketId);
    assert.equal(filled.body.success, true, JSON.stringify(filled.body));
    assert.equal(await approvalTxs(t.address), 12, 'the pending ones were followed, not signed again');
    assert.equal(await gasTopUps(t.address), 1);
    assert.equal((await approvalState(t.address))?.status, 'approved');
  });

  it('when the gas sponsor cannot pay, then the trade is refused retryably with the reason recorded, and a later trade completes the approvals', async () => {
    const t = await fundedManagedWallet();
    const m = await importedMarket(t.agent);
    const sponsor = sponsorAddress();
    await polymarketAdmin('POST', `/polygon/accounts/${sponsor}/balance`, { pol: 0 });
    try {
      const refused = await buy(t.agent, m.marketId);
      assert.equal(refused.body.success, false, JSON.stringify(refused.body));
      assert.equal(refused.body.error_code, 'wallet_approvals_failed', JSON.stringify(refused.body));
      assert.equal(refused.body.retryable, true);
      assert.match(refused.body.error, /gas sponsor/);
      const failed = await approvalState(t.address);
      assert.equal(failed?.status, 'failed');
      assert.match(failed?.error ?? '', /insufficient funds/);
      assert.equal(await approvalTxs(t.address), 0);
    } finally {
      await fundGasSponsor(testContext().polymarket.adminUrl, sponsor);
    }

    const filled = await buy(t.agent, m.marketId);
    assert.equal(filled.body.success, true, JSON.stringify(filled.body));
    assert.equal(await allSetOnChain(t.address), true);
    assert.equal(await approvalTxs(t.address), 12);
    assert.equal((await approvalState(t.address))?.status, 'approved');
  });
});
