import assert from 'node:assert/strict';
import { AssetType } from '@polymarket/clob-client-v2';
import { MaxUint256, Transaction } from 'ethers';
import { api } from '../support/http.js';
import { polygonResult, relayTx, signAsClient } from '../support/polygon-client.js';
import { asAgent, externalTrader, importedMarket, signedBuy } from '../support/polymarket-traders.js';
import { until } from '../support/until.js';
import { polymarketAdmin } from '../support/venue-emulators.js';

interface UnsignedTx {
  from: string;
  to: string;
  data: string;
  chainId: number;
  kind: string;
}

// Issue 13, "Approvals": a new external wallet gets its approvals on-chain the way a client sets
// them (client-contract §8.3) — the unsigned transactions from the allowances endpoint, signed
// locally, relayed by the service — and the CLOB then takes the buy it refused before. No admin
// approve shortcut: the allowance the CLOB checks is the one the relayed transactions set.
describe('Approvals through the relay, then a CLOB buy (issue 13) #integration', function () {
  this.timeout(60_000);
  let mining: string;

  // Manual mining: each relayed transaction is seen pending, then mined when the test says so.
  before(async () => {
    mining = (await polymarketAdmin<{ mining: { mode: string } }>('GET', '/polygon')).mining.mode;
    await polymarketAdmin('POST', '/polygon/mining', { mode: 'manual' });
  });
  after(() => polymarketAdmin('POST', '/polygon/mining', { mode: mining }));

  it('when a new wallet has no approvals, then its buy is refused; once it signs and relays the listed approvals, all_set is true and the same buy fills', async () => {
    const t = await externalTrader({ approved: false });
    const auth = asAgent(t.agent);
    const address = t.wallet.address;
    await polymarketAdmin('POST', `/polygon/accounts/${address}/fund`, { pol: 1 });
    const m = await importedMarket(t.agent);
    const buy = () => signedBuy(t, m);
    const positions = async () => {
      const res = await api().get('/api/sdk/positions?venue=polymarket').set(auth).expect(200);
      return (res.body.positions as { market_id: string; venue: string; shares_yes: number }[]).filter(
        (p) => p.market_id === m.marketId,
      );
    };
    const allowances = (query: Record<string, string>) =>
      api().get(`/api/polymarket/allowances/${address}`).query(query).set(auth).expect(200);

    // 1. Funded but not approved: the CLOB refuses the buy, and nothing is bought.
    const refused = await buy();
    assert.equal(refused.body.success, false, JSON.stringify(refused.body));
    assert.equal(refused.body.error_code, 'insufficient_balance', JSON.stringify(refused.body));
    assert.match(refused.body.error, /not enough balance \/ allowance/);
    assert.match(refused.body.hint, /\/api\/polymarket\/allowances\//);
    assert.deepEqual(await positions(), []);
    const untouched = await polymarketAdmin<{ pusd: number; tokens: Record<string, unknown> }>(
      'GET',
      `/wallets/${address}`,
    );
    assert.equal(Number(untouched.pusd), 1000, JSON.stringify(untouched));
    assert.equal(untouched.tokens[m.yes], undefined, JSON.stringify(untouched));
    const noAllowance = await t.clob.getBalanceAllowance({ asset_type: AssetType.COLLATERAL });
    assert.ok(
      Object.values(noAllowance.allowances).every((a) => a === '0'),
      JSON.stringify(noAllowance),
    );

    // 2. The approvals to sign, each signed with ethers and relayed, followed to its receipt.
    const unset = await allowances({ include_tx_params: '1', no_cache: '1' });
    assert.equal(unset.body.all_set, false, JSON.stringify(unset.body));
    const txs = unset.body.transactions as UnsignedTx[];
    assert.ok(txs.length > 0);
    assert.equal(txs.length, unset.body.missing.length);
    const hashes: string[] = [];
    for (const tx of txs) {
      assert.equal(tx.from, address);
      const signed = await signAsClient(auth, t.wallet, tx);
      const relayed = await relayTx(auth, signed).expect(200);
      assert.equal(relayed.body.success, true, JSON.stringify(relayed.body));
      assert.equal(relayed.body.tx_hash, Transaction.from(signed).hash!.toLowerCase());
      assert.equal(relayed.body.status, 'sent', JSON.stringify(relayed.body));
      assert.equal(relayed.body.kind, tx.kind);
      const hash = relayed.body.tx_hash as string;
      assert.equal(await polygonResult(auth, 'eth_getTransactionReceipt', [hash]), null, 'pending');
      const block = await polymarketAdmin<{ mined: string[] }>('POST', '/polygon/mine');
      assert.deepEqual(block.mined, [hash]);
      const receipt = (await polygonResult(auth, 'eth_getTransactionReceipt', [hash])) as { status: string };
      assert.equal(receipt.status, '0x1', JSON.stringify(receipt));
      hashes.push(hash);
    }
    // The service follows each one to its receipt too.
    const followed = await until(
      async () =>
        (await api().get('/api/sdk/wallet/broadcasts?limit=50').set(auth).expect(200)).body.broadcasts as {
          tx_hash: string;
          status: string;
        }[],
      (rows) => rows.length === hashes.length && rows.every((r) => r.status === 'mined'),
    );
    assert.deepEqual(
      followed.map((r) => [r.tx_hash, r.status]).sort(),
      hashes.map((h) => [h, 'mined']).sort(),
    );

    // 3. Read again from the chain: every approval is set.
    const set = await allowances({ include_tx_params: '1', no_cache: '1' });
    assert.equal(set.body.all_set, true, JSON.stringify(set.body));
    assert.ok(
      Object.values(set.body.allowances).every((v) => v === true),
      JSON.stringify(set.body),
    );
    assert.deepEqual(set.body.missing, []);
    assert.deepEqual(set.body.transactions, []);
    // After approving, a client asks the CLOB to refresh its view of the wallet (polymarket.md §8.3).
    const refreshed = await t.clob.updateBalanceAllowance({ asset_type: AssetType.COLLATERAL });
    assert.equal((refreshed as { error?: unknown } | undefined)?.error, undefined, JSON.stringify(refreshed));
    const approved = await t.clob.getBalanceAllowance({ asset_type: AssetType.COLLATERAL });
    assert.ok(
      Object.values(approved.allowances).every((a) => a === MaxUint256.toString()),
      JSON.stringify(approved),
    );

    // 4. The same buy, signed afresh, fills and shows as a Polymarket position.
    const filled = await buy();
    assert.equal(filled.body.success, true, JSON.stringify(filled.body));
    // Matched on the CLOB, settling on chain.
    assert.equal(filled.body.fill_status, 'unconfirmed', JSON.stringify(filled.body));
    assert.ok(filled.body.shares_bought > 0);
    const [row] = await positions();
    assert.ok(row, 'a position');
    assert.equal(row.venue, 'polymarket');
    assert.equal(row.shares_yes, filled.body.shares_bought);
    const venue = await polymarketAdmin<{ tokens: Record<string, number | string> }>(
      'GET',
      `/wallets/${address}`,
    );
    assert.equal(Number(venue.tokens[m.yes]), filled.body.shares_bought, JSON.stringify(venue));
  });
});
