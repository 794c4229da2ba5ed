import assert from 'node:assert/strict';
import { ClobClient, OrderType, Side, SignatureTypeV2 } from '@polymarket/clob-client-v2';
import { Interface, Wallet, ZeroHash } from 'ethers';
import { checkResolutions } from '../../shared/domains/venue-sync/check-resolutions.js';
import { depositWalletAddress } from '../../shared/domains/venues/polymarket/onchain/deposit-wallet/deposit-wallet-address.js';
import { CONTRACTS, MAX_UINT256, depositWalletOf } from '../emulators/polymarket/index.js';
import { testContext } from '../support/context.js';
import { api, type RegisteredAgent } from '../support/http.js';
import {
  asAgent,
  claimedWithRealTrading,
  importedMarket,
  linkExternalWallet,
  managedTrader,
  ownerIdOf,
  polymarketTrade,
  registerClobCredentials,
  setTier,
} from '../support/polymarket-traders.js';
import { asUser } from '../support/users.js';
import { polymarketAdmin } from '../support/venue-emulators.js';
import { submitBatch as relayBatch, waitForRelayed } from '../support/relayer-client.js';

// The deposit-wallet path of an external wallet (issue 26 item 5, client-contract §8.4, §8.5), end
// to end on the emulators: upgrade → approvals batch → wrap USDC.e → a type-3 (POLY_1271) order
// signed by Polymarket's own client → redemption from the deposit wallet. Every step is a call a
// client makes; DW_TRACE=1 prints each call and its answer.

const trace = (step: string, call: string, answer: unknown) => {
  if (process.env.DW_TRACE) console.log(`\n── ${step}\n${call}\n→ ${JSON.stringify(answer, null, 2)}`);
};

interface Prepared {
  typed_data: {
    domain: Record<string, unknown>;
    types: Record<string, unknown>;
    message: Record<string, unknown>;
  };
  nonce: string;
  deadline: string;
  calls: { target: string; value: string; data: string }[];
}

/** What the official client does between prepare and submit: sign the whole typed data with the owner key. */
async function signBatch(owner: Wallet, p: Prepared): Promise<string> {
  const { EIP712Domain: _, ...types } = p.typed_data.types as Record<
    string,
    { name: string; type: string }[]
  >;
  return owner.signTypedData(p.typed_data.domain, types, p.typed_data.message);
}

/** POST with `Content-Type: application/json` and no body, as the Python client sends body-less POSTs. */
const bodyless = (agent: RegisteredAgent, path: string) =>
  api().post(path).set(asAgent(agent)).set('Content-Type', 'application/json');

const ledger = () => testContext().polymarket.state.ledger;

/** A submit as the client sends it (the prepared nonce, deadline and calls, signed by `signer`), expecting `status`. */
async function submit(
  agent: RegisteredAgent,
  path: string,
  signer: Wallet,
  p: Prepared,
  status: number,
  extra: Record<string, unknown> = {},
) {
  return api()
    .post(path)
    .set(asAgent(agent))
    .send({
      signature: await signBatch(signer, p),
      nonce: p.nonce,
      deadline: p.deadline,
      calls: p.calls,
      ...extra,
    })
    .expect(status);
}

/** A $10 FAK buy of YES signed as type 3 (POLY_1271) by Polymarket's own client, maker and signer the deposit wallet. */
async function typeThreeBuy(agent: RegisteredAgent, owner: Wallet, depositWallet: string) {
  const { host, signer, creds } = await registerClobCredentials(agent, owner);
  const clob = new ClobClient({
    host,
    chain: 137,
    signer,
    creds,
    signatureType: SignatureTypeV2.POLY_1271,
    funderAddress: depositWallet,
  });
  const m = await importedMarket(agent);
  const order = await clob.createMarketOrder({ tokenID: m.yes, amount: 10, side: Side.BUY, price: 0.6 });
  const trade = await polymarketTrade(agent, {
    market_id: m.marketId,
    side: 'yes',
    amount: 10,
    order_type: OrderType.FAK,
    signed_order: order,
  }).expect(200);
  return { m, order, trade };
}

/** The venue resolves the market, the service sees it, and the agent asks to redeem from its deposit wallet. */
async function resolveThenPrepareRedeem(
  agent: RegisteredAgent,
  m: { conditionId: string; marketId: string },
  outcome: 'yes' | '50-50',
) {
  await polymarketAdmin('POST', `/markets/${m.conditionId}/resolve`, { outcome });
  await checkResolutions(testContext().deps);
  return api()
    .post('/api/sdk/dw-redeem/prepare')
    .set(asAgent(agent))
    .send({ market_id: m.marketId, side: 'yes' })
    .expect(200);
}

/** The collateral adapters' redemption (polymarket.md §8.2, §8.3): the caller's whole balance of both outcomes. */
const ADAPTER_REDEEM = new Interface([
  'function redeemPositions(address collateral, bytes32 parentCollectionId, bytes32 conditionId, uint256[] indexSets)',
]);

/** `POST /api/sdk/redeem/report` of `txHash` for the market's YES. */
const report = (agent: RegisteredAgent, marketId: string, txHash: string) =>
  api()
    .post('/api/sdk/redeem/report')
    .set(asAgent(agent))
    .send({ market_id: marketId, side: 'yes', tx_hash: txHash });

describe('Deposit wallets (signature type 3): upgrade, approvals, wrap, type-3 trade, redemption #integration', function () {
  this.timeout(60_000);

  it('when a linked EOA upgrades, then approvals, wrap, a POLY_1271 trade and the redemption all run from its deposit wallet', async () => {
    const { agent } = await claimedWithRealTrading();
    const owner = Wallet.createRandom() as unknown as Wallet;
    await linkExternalWallet(agent, owner);
    const expected = depositWalletOf(owner.address);
    // The service's derivation (polynode's) and the emulated factory's agree.
    assert.equal(depositWalletAddress(owner.address), expected);

    // 1. Upgrade: the relayer deploys the wallet; asked again, it is adopted.
    const up = await bodyless(agent, '/api/user/wallet/external-upgrade-to-deposit-wallet').expect(200);
    trace('upgrade', 'POST /api/user/wallet/external-upgrade-to-deposit-wallet', up.body);
    assert.equal(up.body.deposit_wallet_address, expected);
    assert.equal(up.body.already_existed, false);
    const again = await bodyless(agent, '/api/user/wallet/external-upgrade-to-deposit-wallet').expect(200);
    assert.equal(again.body.already_existed, true);
    const me = await api().get('/api/sdk/agents/me').set(asAgent(agent)).expect(200);
    assert.equal(me.body.wallet_uses_deposit_wallet, true);
    assert.equal(me.body.deposit_wallet_address, expected);
    assert.equal(testContext().polymarket.state.depositWallets.ownerOf(expected), owner.address);

    // 2. Approvals: the twelve the wallet lacks, one batch signed by the owner, executed by the relayer.
    const prep = await bodyless(agent, '/api/user/wallet/external/dw-approvals/prepare').expect(200);
    trace('dw-approvals/prepare', 'POST /api/user/wallet/external/dw-approvals/prepare', prep.body);
    assert.equal(prep.body.already_set, false);
    assert.equal(prep.body.calls.length, 12);
    assert.equal(prep.body.typed_data.primaryType, 'Batch');
    assert.equal(prep.body.typed_data.domain.verifyingContract, expected);
    // A batch the owner did not sign is refused before it reaches the relayer.
    const APPROVALS = '/api/user/wallet/external/dw-approvals/submit';
    const forged = await submit(agent, APPROVALS, Wallet.createRandom() as unknown as Wallet, prep.body, 400);
    assert.equal(
      forged.body.error_code ?? forged.body.code,
      'signature_mismatch',
      JSON.stringify(forged.body),
    );
    // Nor is a batch whose calls were changed after prepare.
    const swapped = await api()
      .post(APPROVALS)
      .set(asAgent(agent))
      .send({
        signature: await signBatch(owner, prep.body),
        nonce: prep.body.nonce,
        deadline: prep.body.deadline,
        calls: prep.body.calls.slice(1),
      })
      .expect(409);
    assert.match(JSON.stringify(swapped.body), /batch_not_prepared/);
    const sub = await submit(agent, APPROVALS, owner, prep.body, 200);
    trace('dw-approvals/submit', 'POST /api/user/wallet/external/dw-approvals/submit', sub.body);
    assert.equal(sub.body.status, 'executed', JSON.stringify(sub.body));
    assert.equal(sub.body.calls_executed, 12);
    assert.equal(ledger().allowance(expected, CONTRACTS.exchangeV2), MAX_UINT256);
    assert.equal(ledger().isApprovedForAll(expected, CONTRACTS.ctfCollateralAdapter), true);
    // The approvals belong to the deposit wallet, not to the EOA.
    assert.equal(ledger().allowance(owner.address, CONTRACTS.exchangeV2), 0n);
    const allowances = await api()
      .get(`/api/polymarket/allowances/${expected}?no_cache=1`)
      .set(asAgent(agent))
      .expect(200);
    assert.equal(allowances.body.all_set, true);
    const done = await bodyless(agent, '/api/user/wallet/external/dw-approvals/prepare').expect(200);
    assert.equal(done.body.already_set, true);
    // The per-agent route reaches the same wallet; the combo approvals are still missing there.
    const combo = await api()
      .post(`/api/user/agent/${agent.agent_id}/wallet/external/dw-approvals/prepare`)
      .set(asAgent(agent))
      .send({ combo: true })
      .expect(200);
    assert.equal(combo.body.already_set, false);
    assert.equal(combo.body.calls.length, 2);

    // 3. Wrap: USDC.e that landed in the deposit wallet becomes pUSD there.
    await polymarketAdmin('POST', `/wallets/${expected}/fund`, { usdce: 50 });
    const wrap = await bodyless(agent, '/api/user/wallet/wrap-on-dw/external/prepare').expect(200);
    trace('wrap-on-dw/prepare', 'POST /api/user/wallet/wrap-on-dw/external/prepare', wrap.body);
    assert.equal(wrap.body.amount_units, 50_000_000);
    assert.equal(wrap.body.calls.length, 2);
    const wrapped = await submit(
      agent,
      '/api/user/wallet/wrap-on-dw/external/submit',
      owner,
      wrap.body,
      200,
      {
        amount_units: wrap.body.amount_units,
      },
    );
    trace('wrap-on-dw/submit', 'POST /api/user/wallet/wrap-on-dw/external/submit', wrapped.body);
    assert.equal(wrapped.body.status, 'executed', JSON.stringify(wrapped.body));
    assert.equal(ledger().pusdBalance(expected), 50_000_000n);
    assert.equal(ledger().usdceBalance(expected), 0n);
    const nothing = await bodyless(agent, '/api/user/wallet/wrap-on-dw/external/prepare').expect(200);
    assert.equal(nothing.body.amount_units, 0);

    // 4. A buy signed as type 3 by Polymarket's own client (maker = signer = deposit wallet).
    const { m, order, trade } = await typeThreeBuy(agent, owner, expected);
    assert.equal(order.signatureType, 3);
    assert.equal(order.maker, expected);
    trace('trade (type 3)', 'POST /api/sdk/trade {venue: polymarket, signed_order: <POLY_1271>}', trade.body);
    assert.equal(trade.body.success, true, JSON.stringify(trade.body));
    const shares = trade.body.shares_bought as number;
    assert.ok(shares > 0);
    const heldMicro = ledger().tokenBalance(expected, m.yes);
    assert.equal(heldMicro, BigInt(Math.round(shares * 1e6)));
    const pusdAfterTrade = ledger().pusdBalance(expected);

    // 5. Redemption from the deposit wallet.
    const rp = await resolveThenPrepareRedeem(agent, m, 'yes');
    trace('dw-redeem/prepare', 'POST /api/sdk/dw-redeem/prepare', rp.body);
    assert.equal(rp.body.eoa_fallback, undefined, JSON.stringify(rp.body));
    assert.equal(rp.body.deposit_wallet_address, expected);
    assert.equal(rp.body.outcome, 'yes');
    // setApprovalForAll(adapter) is set already (step 2): only the redemption itself.
    assert.equal(rp.body.calls.length, 1);
    const rs = await submit(agent, '/api/sdk/dw-redeem/submit', owner, rp.body, 200, {
      market_id: m.marketId,
      side: 'yes',
    });
    trace('dw-redeem/submit', 'POST /api/sdk/dw-redeem/submit', rs.body);
    assert.equal(rs.body.status, 'executed', JSON.stringify(rs.body));
    assert.equal(rs.body.payout_pusd, shares);
    assert.equal(ledger().tokenBalance(expected, m.yes), 0n);
    assert.equal(ledger().pusdBalance(expected), pusdAfterTrade + heldMicro);
    const positions = await api()
      .get('/api/sdk/positions?venue=polymarket&status=all')
      .set(asAgent(agent))
      .expect(200);
    const p = positions.body.positions.find((x: { market_id: string }) => x.market_id === m.marketId);
    assert.equal(p.status, 'settled');
    assert.equal(p.redeemable, false);
    const twice = await api()
      .post('/api/sdk/dw-redeem/prepare')
      .set(asAgent(agent))
      .send({ market_id: m.marketId, side: 'yes' })
      .expect(200);
    assert.equal(twice.body.already_redeemed, true);
  });

  it('when the market resolves 50-50, then the deposit wallet redeems both sides at 0.5 a share (is_cancelled, no winning outcome)', async () => {
    const { agent } = await claimedWithRealTrading();
    const owner = Wallet.createRandom() as unknown as Wallet;
    await linkExternalWallet(agent, owner);
    const dw = depositWalletOf(owner.address);
    await bodyless(agent, '/api/user/wallet/external-upgrade-to-deposit-wallet').expect(200);
    const prep = await bodyless(agent, '/api/user/wallet/external/dw-approvals/prepare').expect(200);
    await submit(agent, '/api/user/wallet/external/dw-approvals/submit', owner, prep.body, 200);
    await polymarketAdmin('POST', `/wallets/${dw}/fund`, { pusd: 20 });
    const { m, trade: bought } = await typeThreeBuy(agent, owner, dw);
    assert.equal(bought.body.success, true, JSON.stringify(bought.body));
    const heldMicro = ledger().tokenBalance(dw, m.yes);
    assert.ok(heldMicro > 0n);
    const pusdBefore = ledger().pusdBalance(dw);

    const rp = await resolveThenPrepareRedeem(agent, m, '50-50');
    assert.equal(rp.body.not_redeemable, undefined, JSON.stringify(rp.body));
    assert.equal(rp.body.is_cancelled, true);
    assert.equal(rp.body.outcome, undefined);
    const half = heldMicro / 2n; // the CTF pays amount × 1/2, rounded down
    assert.equal(rp.body.expected_payout_pusd, Number(half) / 1e6);
    const rs = await submit(agent, '/api/sdk/dw-redeem/submit', owner, rp.body, 200, {
      market_id: m.marketId,
      side: 'yes',
    });
    assert.equal(rs.body.status, 'executed', JSON.stringify(rs.body));
    assert.equal(rs.body.payout_pusd, Number(half) / 1e6);
    assert.equal(ledger().tokenBalance(dw, m.yes), 0n);
    assert.equal(ledger().pusdBalance(dw), pusdBefore + half);
  });

  it('when the owner relays its redemption batch through the relayer itself and reports the relayer’s transaction hash, then the chain proves it and it settles for the payout; another account reporting that hash is refused', async () => {
    const { agent } = await claimedWithRealTrading();
    const owner = Wallet.createRandom() as unknown as Wallet;
    await linkExternalWallet(agent, owner);
    const dw = depositWalletOf(owner.address);
    await bodyless(agent, '/api/user/wallet/external-upgrade-to-deposit-wallet').expect(200);
    await polymarketAdmin('POST', `/wallets/${dw}/fund`, { pusd: 20 });
    await polymarketAdmin('POST', `/wallets/${dw}/approve`);
    const { m, trade } = await typeThreeBuy(agent, owner, dw);
    assert.equal(trade.body.success, true, JSON.stringify(trade.body));
    const shares = trade.body.shares_bought as number;
    // Another user holds YES of the same market, in its managed wallet.
    const other = await managedTrader();
    const bought = await polymarketTrade(other.agent, { market_id: m.marketId, side: 'yes', amount: 10 });
    assert.equal(bought.body.success, true, JSON.stringify(bought.body));
    await polymarketAdmin('POST', `/markets/${m.conditionId}/resolve`, { outcome: 'yes' });
    await checkResolutions(testContext().deps);

    // The client redeems without the service: the adapter redemption (§8.3) as a batch its owner
    // signs, sent to Polymarket's relayer with its own builder credentials, followed to the end.
    const pusdBefore = ledger().pusdBalance(dw);
    const { polymarket } = testContext();
    const redemption = {
      target: CONTRACTS.ctfCollateralAdapter,
      value: '0',
      data: ADAPTER_REDEEM.encodeFunctionData('redeemPositions', [
        CONTRACTS.pusd,
        ZeroHash,
        m.conditionId,
        [1, 2],
      ]),
    };
    const sent = await relayBatch(polymarket.relayerUrl, owner, [redemption], {
      nowMs: polymarket.state.now(),
    });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const relayed = await waitForRelayed(polymarket.relayerUrl, sent.body.transactionID);
    assert.equal(relayed.state, 'STATE_CONFIRMED', JSON.stringify(relayed));
    const hash = relayed.transactionHash as string;
    assert.equal(ledger().pusdBalance(dw), pusdBefore + BigInt(Math.round(shares * 1e6)));

    // The other account reports it first: the receipt redeems another wallet.
    const early = await report(other.agent, m.marketId, hash).expect(409);
    assert.deepEqual(
      [early.body.error_code, early.body.reason],
      ['redemption_not_proven', 'other_wallet'],
      JSON.stringify(early.body),
    );
    // The owner's report: proven by the relayed transaction's receipt, settled for what it paid.
    const own = await report(agent, m.marketId, hash).expect(200);
    assert.deepEqual(
      [own.body.recorded, own.body.positions_settled, own.body.payout],
      [true, 1, shares],
      JSON.stringify(own.body),
    );
    const positions = await api()
      .get('/api/sdk/positions?venue=polymarket&status=all')
      .set(asAgent(agent))
      .expect(200);
    const p = positions.body.positions.find((x: { market_id: string }) => x.market_id === m.marketId);
    assert.deepEqual([p.status, p.redeemable], ['settled', false]);
    const replay = await report(agent, m.marketId, hash).expect(200);
    assert.deepEqual([replay.body.recorded, replay.body.positions_settled], [false, 0]);
    // Now recorded as the owner's: the other account is refused, its own winnings untouched.
    const late = await report(other.agent, m.marketId, hash).expect(409);
    assert.equal(late.body.error_code, 'redemption_of_another_account', JSON.stringify(late.body));
    assert.ok(late.body.detail && late.body.error && late.body.fix, JSON.stringify(late.body));
    const theirs = await api()
      .get('/api/sdk/positions?venue=polymarket&status=all')
      .set(asAgent(other.agent))
      .expect(200);
    const q = theirs.body.positions.find((x: { market_id: string }) => x.market_id === m.marketId);
    assert.deepEqual([q.status === 'settled', q.redeemable], [false, true]);
  });

  it('when the per-agent route is used, then only the agent or its human reach its wallet, and a managed agent wallet has nothing to sign', async () => {
    const { agent, token } = await claimedWithRealTrading();
    const owner = Wallet.createRandom() as unknown as Wallet;
    await linkExternalWallet(agent, owner);
    await bodyless(agent, '/api/user/wallet/external-upgrade-to-deposit-wallet').expect(200);
    const path = `/api/user/agent/${agent.agent_id}/wallet/external/dw-approvals/prepare`;
    // The human's token reaches the deposit wallet its agent trades with.
    const mine = await api()
      .post(path)
      .set(asUser(token))
      .set('Content-Type', 'application/json')
      .expect(200);
    assert.equal(mine.body.deposit_wallet_address, depositWalletOf(owner.address));
    assert.equal(mine.body.calls.length, 12);
    // Another human, and another agent, do not.
    const stranger = await claimedWithRealTrading();
    await api().post(path).set(asUser(stranger.token)).send({}).expect(404);
    await api().post(path).set(asAgent(stranger.agent)).send({}).expect(404);
    // An Elite agent with its own managed wallet: the service signs for it.
    await setTier(await ownerIdOf(agent), 'elite');
    await api().post('/api/sdk/agent-wallet/register').set(asAgent(agent)).send({}).expect(201);
    const managed = await api().post(path).set(asAgent(agent)).send({}).expect(409);
    assert.match(JSON.stringify(managed.body), /agent_wallet_managed/);
  });

  it('when the account has no deposit wallet, then the batch routes say how to get one', async () => {
    const { agent } = await claimedWithRealTrading();
    const owner = Wallet.createRandom() as unknown as Wallet;
    await linkExternalWallet(agent, owner);
    const res = await bodyless(agent, '/api/user/wallet/external/dw-approvals/prepare').expect(409);
    assert.match(JSON.stringify(res.body), /no_deposit_wallet/);
    assert.match(res.body.fix, /external-upgrade-to-deposit-wallet/);
    const wrap = await bodyless(agent, '/api/user/wallet/wrap-on-dw/external/prepare').expect(409);
    assert.match(wrap.body.fix, /external-upgrade-to-deposit-wallet/);
  });

  it('when a submit carries a nonce or call value that is not a uint256, then it is a 422 naming the field, not a 500', async () => {
    const { agent } = await claimedWithRealTrading();
    const call = { target: '0x' + '0'.repeat(40), value: '0', data: '0x00000000' };
    const bodies = [
      { nonce: '0', calls: [{ ...call, value: 'AAA' }] }, // the contract fuzzer's samples (seed 8887)
      { nonce: 'AAA', calls: [call] },
      { nonce: '2' + '0'.repeat(77), calls: [call] }, // above 2^256 - 1 (about 1.16e77)
    ];
    for (const path of [
      '/api/user/wallet/external/dw-approvals/submit',
      `/api/user/agent/${agent.agent_id}/wallet/external/dw-approvals/submit`,
      '/api/user/wallet/wrap-on-dw/external/submit',
    ])
      for (const b of bodies) {
        const res = await api()
          .post(path)
          .set(asAgent(agent))
          .send({ signature: '0'.repeat(130), deadline: '0', amount_units: 1, ...b });
        assert.equal(
          res.status,
          422,
          `${path} ${JSON.stringify(b)} → ${res.status} ${JSON.stringify(res.body)}`,
        );
        assert.ok(res.body.fix, JSON.stringify(res.body));
      }
  });
});
