import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { Interface, Wallet, ZeroHash } from 'ethers';
import { enqueueAutoRedemptions } from '../../shared/domains/venues/polymarket/onchain/auto-redeem.js';
import { redeemPosition } from '../../shared/domains/venues/polymarket/onchain/redeem-position.js';
import { redemptionId } from '../../shared/domains/wallets/redemption.model.js';
import { POLYGON_CONTRACTS } from '../../shared/domains/venues/polymarket/onchain/polygon-contracts.js';
import { checkResolutions } from '../../shared/domains/venue-sync/check-resolutions.js';
import {
  finishRelayedRedemptions,
  linkRelayedRedemption,
} from '../../shared/domains/venues/polymarket/onchain/relayed-redemption.js';
import { settleRedeemedPositions } from '../../shared/domains/venues/polymarket/onchain/settle-redemption.js';
import { redemptionTransaction } from '../../shared/domains/venues/polymarket/onchain/approval-transactions.js';
import { positionId } from '../../shared/domains/positions/position.model.js';
import { toMicro } from '../../shared/domains/money.js';
import { trade } from '../support/factories.js';
import { assertAgentConserved } from '../support/invariants.js';
import { minuteSlot } from '../../shared/infra/queue/slots.js';
import { QueueClient } from '../../shared/infra/queue/queue-client.js';
import { testContext } from '../support/context.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { signAsClient, relayTx } from '../support/polygon-client.js';
import {
  asAgent,
  claimedWithRealTrading,
  externalTrader,
  importedMarket,
  ownerIdOf,
  polymarketTrade,
  setTier,
  signedBuy,
} from '../support/polymarket-traders.js';
import { until } from '../support/until.js';
import { asUser, claim } from '../support/users.js';
import { polymarketAdmin } from '../support/venue-emulators.js';
import { runWorkerProcess } from '../support/worker-process.js';

interface ChainTx {
  hash: string;
  to: string;
  selector: string;
  status: string;
  receipt_status: number | null;
}

const pusd = async (address: string) =>
  (await polymarketAdmin<{ pusd: number }>('GET', `/wallets/${address}`)).pusd;
const txsFrom = (address: string) =>
  polymarketAdmin<ChainTx[]>('GET', `/polygon/transactions?from=${address}`);
const REDEEM_SELECTOR = '0x01b7037c';
/** The CTF's own (legacy) redemption, polymarket.md §8.2. */
const CTF_REDEEM = new Interface([
  'function redeemPositions(address collateral, bytes32 parentCollectionId, bytes32 conditionId, uint256[] indexSets)',
]);
const operator = () => ({ Authorization: `Bearer ${testContext().operatorToken}` });

/** pUSD, POL for gas and the trading approvals for a wallet the service signs for. */
async function fundAndApprove(address: string) {
  await polymarketAdmin('POST', `/wallets/${address}/fund`, { pusd: 500 });
  await polymarketAdmin('POST', `/wallets/${address}/approve`);
  await polymarketAdmin('POST', `/polygon/accounts/${address}/fund`, { pol: 1 });
}

/** A claimed agent trading from its human's managed wallet, funded and approved. */
async function managedTrader() {
  const { agent, token } = await claimedWithRealTrading();
  const settings = await api().get('/api/sdk/settings').set(asUser(token)).expect(200);
  const address = settings.body.wallet_address as string;
  await fundAndApprove(address);
  return { agent, token, address };
}

/** Buys YES for $10 (from the human's managed wallet, or the agent's own with `wallet_address`); the shares bought. */
async function managedBuy(agent: RegisteredAgent, marketId: string, walletAddress?: string): Promise<number> {
  const res = await polymarketTrade(agent, {
    market_id: marketId,
    side: 'yes',
    amount: 10,
    ...(walletAddress ? { wallet_address: walletAddress } : {}),
  }).expect(200);
  assert.equal(res.body.success, true, JSON.stringify(res.body));
  assert.ok(res.body.shares_bought > 0);
  return res.body.shares_bought as number;
}

/** A managed trader holding YES of a new imported market (bought for $10): the trader, market and shares. */
async function managedHolding() {
  const t = await managedTrader();
  const m = await importedMarket(t.agent);
  const shares = await managedBuy(t.agent, m.marketId);
  return { t, m, shares };
}

/** An external-wallet trader with POL for gas holding YES of a new imported market, bought with a client-signed order. */
async function externalHolding() {
  const t = await externalTrader();
  const auth = asAgent(t.agent);
  await polymarketAdmin('POST', `/polygon/accounts/${t.wallet.address}/fund`, { pol: 1 });
  const m = await importedMarket(t.agent);
  const bought = await signedBuy(t, m);
  assert.equal(bought.body.success, true, JSON.stringify(bought.body));
  return { t, auth, m, shares: bought.body.shares_bought as number };
}

/** Resolves the market on the emulator and lets the service see it (the resolution job's work). */
async function resolveYes(conditionId: string) {
  await polymarketAdmin('POST', `/markets/${conditionId}/resolve`, { outcome: 'yes' });
  await checkResolutions(testContext().deps);
}

const positionOf = async (agent: RegisteredAgent, marketId: string) => {
  const res = await api()
    .get('/api/sdk/positions?venue=polymarket&status=all')
    .set(asAgent(agent))
    .expect(200);
  return res.body.positions.find((p: { market_id: string }) => p.market_id === marketId) as
    | {
        status: string;
        redeemable: boolean;
        redeemable_side: string | null;
        payout: number;
        shares_yes: number;
        holder_address: string | null;
      }
    | undefined;
};

/**
 * An Elite agent that bought in a new market through its human's managed wallet and only then
 * registered a wallet of its own (which holds nothing): the shares stay where they were bought.
 */
async function boughtBeforeOwnWallet() {
  const human = await managedTrader();
  await setTier(await ownerIdOf(human.agent), 'elite');
  const m = await importedMarket(human.agent);
  const shares = await managedBuy(human.agent, m.marketId);
  const reg = await api()
    .post('/api/sdk/agent-wallet/register')
    .set(asAgent(human.agent))
    .send({})
    .expect(201);
  return { human, m, shares, own: reg.body.wallet_address as string };
}

const redeem = (agent: RegisteredAgent, marketId: string) =>
  api().post('/api/sdk/redeem').set(asAgent(agent)).send({ market_id: marketId, side: 'yes' });

const report = (agent: RegisteredAgent, marketId: string, txHash: string) =>
  api()
    .post('/api/sdk/redeem/report')
    .set(asAgent(agent))
    .send({ market_id: marketId, side: 'yes', tx_hash: txHash });

/** A report that must be refused with `status` and `code` (and `reason`), carrying detail, error and fix. */
async function refusedReport(
  agent: RegisteredAgent,
  marketId: string,
  txHash: string,
  status: number,
  code: string,
  reason?: string,
) {
  const res = await report(agent, marketId, txHash).expect(status);
  assert.equal(res.body.error_code, code, JSON.stringify(res.body));
  if (reason) assert.equal(res.body.reason, reason);
  assert.ok(res.body.detail && res.body.error && res.body.fix, JSON.stringify(res.body));
}

/** A JSON-RPC call to the emulated Polygon node itself, not through the service. */
async function chainRpc(method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(testContext().polymarket.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  assert.equal(body.error, undefined, JSON.stringify(body));
  return body.result;
}

/**
 * The collateral-adapter redemption of `conditionId` signed by the wallet and sent straight to the
 * chain, as a client with a node of its own would (the service never relays or links it); mined at
 * once (instant mining). A fixed gas limit, so that one bound to revert is sent all the same.
 */
async function redeemOnChain(
  wallet: Wallet,
  conditionId: string,
  tx: { to: string; data: string; chainId: number } = redemptionTransaction(wallet.address, {
    conditionId,
    negRisk: false,
  }),
): Promise<string> {
  const raw = await wallet.signTransaction({
    type: 0,
    chainId: tx.chainId,
    to: tx.to,
    data: tx.data,
    value: 0,
    nonce: Number(await chainRpc('eth_getTransactionCount', [wallet.address, 'pending'])),
    gasPrice: BigInt((await chainRpc('eth_gasPrice', [])) as string),
    gasLimit: 300_000n,
  });
  return (await chainRpc('eth_sendRawTransaction', [raw])) as string;
}

/** The receipt status the chain gives a transaction (null while pending). */
const receiptStatus = async (hash: string) => {
  const receipt = (await chainRpc('eth_getTransactionReceipt', [hash])) as { status: string } | null;
  return receipt && Number(receipt.status);
};

/**
 * `size` shares of `token` in `holder`'s wallet on the chain, as a transfer from anyone leaves them
 * (one micro-share sent by a stranger after a redemption costs next to nothing).
 */
const holdOnChain = (holder: string, token: string, sizeMicro: number) =>
  polymarketAdmin('POST', '/positions', { user: holder, token_id: token, size: sizeMicro / 1e6 });

/** The adapter redemption of `conditionId` signed by the client, relayed through the service and mined: its hash. */
async function relayedRedemptionMined(
  t: { wallet: Wallet },
  auth: ReturnType<typeof asAgent>,
  conditionId: string,
): Promise<string> {
  const tx = redemptionTransaction(t.wallet.address, { conditionId, negRisk: false });
  const relayed = await relayTx(auth, await signAsClient(auth, t.wallet, tx)).expect(200);
  assert.equal(relayed.body.kind, 'redeem', JSON.stringify(relayed.body));
  const hash = relayed.body.tx_hash as string;
  await until(
    () => testContext().deps.models.TxBroadcast.findById(hash).lean(),
    (b) => b?.status === 'mined',
  );
  return hash;
}

describe('Redemption of resolved Polymarket positions (client-contract §8.4) #integration', function () {
  this.timeout(120_000);
  let mining: string;

  before(async () => {
    mining = (await polymarketAdmin<{ mining: { mode: string } }>('GET', '/polygon')).mining.mode;
    // Each transaction mined on arrival: receipts are there when the sender looks.
    await polymarketAdmin('POST', '/polygon/mining', { mode: 'instant' });
  });
  after(async () => {
    await polymarketAdmin('POST', '/polygon/mining', { mode: mining });
  });

  it('before resolution nothing is redeemable: /redeem is a 409 with a fix, dw-redeem says not_redeemable', async () => {
    const t = await managedTrader();
    const m = await importedMarket(t.agent);
    await managedBuy(t.agent, m.marketId);
    const res = await redeem(t.agent, m.marketId).expect(409);
    assert.equal(res.body.error_code, 'market_not_resolved');
    assert.ok(res.body.fix);
    assert.equal(res.body.not_redeemable, true);
    const dw = await api()
      .post('/api/sdk/dw-redeem/prepare')
      .set(asAgent(t.agent))
      .send({ market_id: m.marketId, side: 'yes' })
      .expect(200);
    assert.equal(dw.body.not_redeemable, true);
    assert.equal(dw.body.reason, 'market_not_settled');
    assert.equal((await positionOf(t.agent, m.marketId))!.redeemable, false);
  });

  it('managed wallet: the service approves the adapter, redeems once, and the pUSD balance rises by the winning shares', async () => {
    const { t, m, shares } = await managedHolding();
    // No approvals left at all: the redemption needs only the adapter as CTF operator, which the service sends.
    await polymarketAdmin('POST', `/wallets/${t.address}/approve`, { approved: false });
    await resolveYes(m.conditionId);

    const before = await positionOf(t.agent, m.marketId);
    assert.equal(before!.redeemable, true);
    assert.equal(before!.redeemable_side, 'yes');
    const dw = await api()
      .post('/api/sdk/dw-redeem/prepare')
      .set(asAgent(t.agent))
      .send({ market_id: m.marketId })
      .expect(200);
    assert.equal(dw.body.eoa_fallback, true);

    const balance = await pusd(t.address);
    const res = await redeem(t.agent, m.marketId).expect(200);
    assert.equal(res.body.success, true, JSON.stringify(res.body));
    assert.equal(res.body.status, 'redeemed');
    assert.equal(res.body.unsigned_tx, undefined);
    assert.match(res.body.tx_hash, /^0x[0-9a-f]{64}$/);
    assert.equal(res.body.payout, shares);
    assert.ok(Math.abs((await pusd(t.address)) - (balance + shares)) < 1e-6);

    const after = await positionOf(t.agent, m.marketId);
    assert.equal(after!.redeemable, false);
    assert.equal(after!.status, 'settled');
    assert.equal(after!.payout, shares);

    // Asked again, run again as a job, and by the auto-redeem job: nothing more is sent or paid.
    const again = await redeem(t.agent, m.marketId).expect(200);
    assert.equal(again.body.already_redeemed, true);
    const rerun = await redeemPosition(
      testContext().deps,
      { userId: await ownerIdOf(t.agent), agentId: null },
      m.marketId,
    );
    assert.equal(rerun.status, 'redeemed');
    const auto = await enqueueAutoRedemptions(testContext().deps, minuteSlot(new Date()));
    assert.deepEqual(
      auto.enqueued.filter((r) => r.marketId === m.marketId),
      [],
    );
    const txs = await txsFrom(t.address);
    assert.equal(txs.filter((x) => x.selector === REDEEM_SELECTOR).length, 1, JSON.stringify(txs));
    assert.equal(txs.filter((x) => x.selector === '0xa22cb465').length, 1, 'one adapter approval');
    assert.ok(txs.every((x) => x.receipt_status === 1));
    assert.ok(Math.abs((await pusd(t.address)) - (balance + shares)) < 1e-6);
  });

  it('managed wallet: a worker SIGKILLed after every write (the broadcast included) still redeems once', async () => {
    const ctx = testContext();
    const { t, m, shares } = await managedHolding();
    await resolveYes(m.conditionId);
    const balance = await pusd(t.address);
    const userId = await ownerIdOf(t.agent);

    const prefix = `${ctx.env.QUEUE_PREFIX}-redeem-${randomUUID().slice(0, 8)}`;
    const queues = new QueueClient(ctx.deps.redis, prefix, ctx.deps.infra);
    const id = redemptionId(t.address, m.marketId);
    const finished = async () =>
      (await ctx.deps.models.Redemption.findById(id, { status: 1 }).lean())?.status === 'redeemed';
    const env = { POLYGON_RPC_URL: ctx.polymarket.rpcUrl };
    let crashes = 0;
    try {
      // The same logical redemption asked twice: two jobs.
      await queues.enqueue('redeem-position', { userId, agentId: null, marketId: m.marketId, attempt: 'r1' });
      await queues.enqueue('redeem-position', { userId, agentId: null, marketId: m.marketId, attempt: 'r2' });
      for (let i = 0; i < 30; i++) {
        if ((await runWorkerProcess(prefix, 1, finished, 'redemptions,tx-broadcasts', env)) !== 'killed')
          break;
        crashes++;
      }
      if (!(await finished()))
        await runWorkerProcess(prefix, null, finished, 'redemptions,tx-broadcasts', env);
    } finally {
      await Promise.all(Object.values(queues.queues).map((q) => q.obliterate({ force: true })));
      await queues.close();
    }
    // Killed after each write that made progress (sign, send, settle, finish), then a clean run ends it.
    assert.ok(crashes >= 3 && crashes < 30, `the worker was killed ${crashes} times`);
    console.log(`      redemption crash test: worker killed ${crashes} times, then finished`);
    assert.ok(await finished());
    const redeems = (await txsFrom(t.address)).filter((x) => x.selector === REDEEM_SELECTOR);
    assert.equal(redeems.length, 1, JSON.stringify(redeems));
    assert.ok(Math.abs((await pusd(t.address)) - (balance + shares)) < 1e-6);
    const p = await positionOf(t.agent, m.marketId);
    assert.equal(p!.status, 'settled');
    assert.equal(p!.payout, shares);
  });

  it('external wallet: unsigned_tx signed by the client and relayed settles when mined, before any report; the report and its replay are no-ops', async () => {
    const { t, auth, m, shares } = await externalHolding();
    await resolveYes(m.conditionId);

    const res = await redeem(t.agent, m.marketId).expect(200);
    assert.equal(res.body.status, 'prepared');
    const tx = res.body.unsigned_tx;
    // What the official client checks before signing (client-contract §8.4).
    assert.equal(tx.to, POLYGON_CONTRACTS.ctfCollateralAdapter);
    assert.ok(tx.data.startsWith(REDEEM_SELECTOR));
    assert.equal(tx.from, t.wallet.address);
    assert.equal(tx.chainId, 137);
    assert.ok(tx.gas > 0);

    const balance = await pusd(t.wallet.address);
    const raw = await signAsClient(auth, t.wallet, tx);
    const relayed = await relayTx(auth, raw).expect(200);
    assert.equal(relayed.body.success, true, JSON.stringify(relayed.body));
    assert.equal(relayed.body.kind, 'redeem');
    const broadcast = await until(
      () => testContext().deps.models.TxBroadcast.findById(relayed.body.tx_hash).lean(),
      (b) => b?.status === 'mined',
    );
    assert.equal(broadcast?.status, 'mined');
    assert.ok(Math.abs((await pusd(t.wallet.address)) - (balance + shares)) < 1e-6);
    // Linked to its market at relay time by the calldata's condition id: the receipt settled it.
    const settled = await until(
      () => positionOf(t.agent, m.marketId),
      (p) => p?.status === 'settled',
    );
    assert.equal(settled!.payout, shares);

    const report = { market_id: m.marketId, side: 'yes', tx_hash: relayed.body.tx_hash };
    const first = await api().post('/api/sdk/redeem/report').set(auth).send(report).expect(200);
    assert.equal(first.body.success, true);
    assert.equal(first.body.recorded, false);
    assert.equal(first.body.positions_settled, 0);
    assert.equal(first.body.payout, shares);
    const replay = await api().post('/api/sdk/redeem/report').set(auth).send(report).expect(200);
    assert.equal(replay.body.recorded, false);
    assert.equal(replay.body.positions_settled, 0);

    const p = await positionOf(t.agent, m.marketId);
    assert.equal(p!.redeemable, false);
    assert.equal(p!.status, 'settled');
    const again = await redeem(t.agent, m.marketId).expect(200);
    assert.equal(again.body.already_redeemed, true);
    const dw = await api()
      .post('/api/sdk/dw-redeem/prepare')
      .set(auth)
      .send({ market_id: m.marketId })
      .expect(200);
    assert.equal(dw.body.already_redeemed, true);
  });

  it("agent wallet: an Elite agent redeems from its own wallet, its human's wallet redeems the other agents", async () => {
    const human = await managedTrader();
    await setTier(await ownerIdOf(human.agent), 'elite');
    const elite = human.agent;
    const reg = await api().post('/api/sdk/agent-wallet/register').set(asAgent(elite)).send({}).expect(201);
    const own = reg.body.wallet_address as string;
    await fundAndApprove(own);
    const other = await registerAgent();
    await claim(human.token, other.claim_code).expect(200);

    const m = await importedMarket(elite);
    const eliteShares = await managedBuy(elite, m.marketId, own);
    const otherShares = await managedBuy(other, m.marketId);
    await resolveYes(m.conditionId);
    const [ownBefore, humanBefore] = [await pusd(own), await pusd(human.address)];

    const first = await redeem(elite, m.marketId).expect(200);
    assert.equal(first.body.status, 'redeemed', JSON.stringify(first.body));
    assert.equal(first.body.payout, eliteShares);
    assert.ok(Math.abs((await pusd(own)) - (ownBefore + eliteShares)) < 1e-6);
    assert.equal(await pusd(human.address), humanBefore);
    assert.equal((await positionOf(elite, m.marketId))!.status, 'settled');
    assert.equal((await positionOf(other, m.marketId))!.redeemable, true);

    const second = await redeem(other, m.marketId).expect(200);
    assert.equal(second.body.status, 'redeemed', JSON.stringify(second.body));
    assert.equal(second.body.payout, otherShares);
    assert.ok(Math.abs((await pusd(human.address)) - (humanBefore + otherShares)) < 1e-6);
    assert.equal((await positionOf(other, m.marketId))!.status, 'settled');
    assert.equal((await txsFrom(own)).filter((x) => x.selector === REDEEM_SELECTOR).length, 1);
  });

  it('when an agent bought through its human’s managed wallet and then registered its own wallet, then the redemption pays the managed wallet that holds the shares', async () => {
    const { human, m, shares, own } = await boughtBeforeOwnWallet();
    await resolveYes(m.conditionId);
    const [managedBefore, ownBefore] = [await pusd(human.address), await pusd(own)];
    assert.equal((await positionOf(human.agent, m.marketId))!.holder_address, human.address);

    const res = await redeem(human.agent, m.marketId).expect(200);
    assert.equal(res.body.status, 'redeemed', JSON.stringify(res.body));
    assert.equal(res.body.payout, shares);
    assert.ok(Math.abs((await pusd(human.address)) - (managedBefore + shares)) < 1e-6);
    assert.equal(await pusd(own), ownBefore);
    const after = await positionOf(human.agent, m.marketId);
    assert.equal(after!.redeemable, false);
    assert.equal(after!.status, 'settled');
    assert.equal((await txsFrom(own)).filter((x) => x.selector === REDEEM_SELECTOR).length, 0);
    const audit = await api().get('/api/admin/audit').set(operator()).expect(200);
    assert.deepEqual(audit.body.differences, [], JSON.stringify(audit.body));
  });

  it('when positions were recorded before their holder was, then the backfill job finds it from the venue and the redemption pays the wallet holding them', async () => {
    const { deps } = testContext();
    const { human, m, shares, own } = await boughtBeforeOwnWallet();
    await fundAndApprove(own);
    // Made by the agent's own wallet, in another market: both positions as an older release stored them.
    const m2 = await importedMarket(human.agent);
    await managedBuy(human.agent, m2.marketId, own);
    const ids = [m.marketId, m2.marketId].map((id) => `${human.agent.agent_id}:${id}:polymarket`);
    await deps.models.Position.updateMany({ _id: { $in: ids } }, { $unset: { holderAddress: 1 } });
    const holders = async () =>
      (await deps.models.Position.find({ _id: { $in: ids } }, { holderAddress: 1 }).lean())
        .sort((a, b) => ids.indexOf(a._id) - ids.indexOf(b._id))
        .map((p) => p.holderAddress ?? null);
    assert.deepEqual(await holders(), [null, null]);

    const slot = minuteSlot(new Date());
    await deps.queues.enqueue('backfill-position-holders', { slot });
    const found = await until(holders, (h) => h.every((a) => a !== null));
    assert.deepEqual(found, [human.address.toLowerCase(), own.toLowerCase()]);
    // Run again (a later slot): once it has finished, nothing has changed.
    const later = { slot: minuteSlot(new Date(Date.now() + 60_000)) };
    await deps.queues.enqueue('backfill-position-holders', later);
    const rerun = await until(
      async () => (await deps.queues.findJob('backfill-position-holders', later))?.finishedOn,
      (f) => f !== undefined,
    );
    assert.ok(rerun);
    assert.deepEqual(await holders(), found);

    await resolveYes(m.conditionId);
    const before = await pusd(human.address);
    const res = await redeem(human.agent, m.marketId).expect(200);
    assert.equal(res.body.status, 'redeemed', JSON.stringify(res.body));
    assert.ok(Math.abs((await pusd(human.address)) - (before + shares)) < 1e-6);
    assert.equal((await positionOf(human.agent, m.marketId))!.redeemable, false);
  });

  it('when an agent with its own wallet has a position whose holder neither the venue nor the fills tell, then neither the redeem endpoint nor auto-redeem redeems it from a guess', async () => {
    const { deps } = testContext();
    const { human, m, own } = await boughtBeforeOwnWallet();
    await fundAndApprove(own);
    // Both wallets hold the market's tokens and the order records no maker (an older record): the
    // position's holder stays unknown after the backfill.
    await polymarketAdmin('POST', `/wallets/${own}/fund`, { tokens: { [m.yes]: 3 } });
    const id = `${human.agent.agent_id}:${m.marketId}:polymarket`;
    await deps.models.Position.updateOne({ _id: id }, { $unset: { holderAddress: 1 } });
    await deps.models.Trade.updateMany(
      { agentId: human.agent.agent_id, marketId: m.marketId },
      { $unset: { 'venueOrder.signed': 1 } },
    );
    await resolveYes(m.conditionId);
    const [managedBefore, ownBefore] = [await pusd(human.address), await pusd(own)];

    const auto = await enqueueAutoRedemptions(deps, minuteSlot(new Date()));
    assert.deepEqual(
      auto.enqueued.filter((r) => r.marketId === m.marketId),
      [],
    );
    const res = await redeem(human.agent, m.marketId).expect(503);
    assert.equal(res.body.error_code, 'holder_unknown', JSON.stringify(res.body));
    assert.equal(res.body.retryable, true);
    assert.ok(res.body.fix);

    assert.equal(await pusd(human.address), managedBefore);
    assert.equal(await pusd(own), ownBefore);
    assert.equal((await txsFrom(own)).filter((x) => x.selector === REDEEM_SELECTOR).length, 0);
    assert.equal(
      (await deps.models.Position.findById(id, { holderAddress: 1 }).lean())!.holderAddress ?? null,
      null,
    );
    assert.equal((await positionOf(human.agent, m.marketId))!.redeemable, true);
  });

  it('when another account names a victim’s wallet as its deposit wallet, then its redemption report settles none of the victim’s positions', async () => {
    const { deps } = testContext();
    const victim = await managedTrader();
    const m = await importedMarket(victim.agent);
    const shares = await managedBuy(victim.agent, m.marketId);
    // The attacker's account trades through a "deposit wallet" that is the victim's managed wallet
    // (as a link stored it before such a link was refused).
    const attacker = await claimedWithRealTrading();
    const linked = await deps.models.Wallet.updateOne(
      { _id: await ownerIdOf(attacker.agent) },
      {
        $set: {
          address: Wallet.createRandom().address,
          ownership: 'external',
          signatureType: 3,
          depositWallet: victim.address,
        },
        $inc: { version: 1 },
      },
    );
    assert.equal(linked.modifiedCount, 1);
    await resolveYes(m.conditionId);

    // A hash the chain does not know proves nothing: refused, and nothing is settled.
    const unknown = `0x${randomBytes(32).toString('hex')}`;
    await refusedReport(attacker.agent, m.marketId, unknown, 404, 'transaction_not_found');
    const untouched = await positionOf(victim.agent, m.marketId);
    assert.notEqual(untouched!.status, 'settled');
    assert.equal(untouched!.redeemable, true);

    const before = await pusd(victim.address);
    const res = await redeem(victim.agent, m.marketId).expect(200);
    assert.equal(res.body.status, 'redeemed', JSON.stringify(res.body));
    assert.ok(Math.abs((await pusd(victim.address)) - (before + shares)) < 1e-6);
  });

  it('when another account reports a redemption it did not send, then it is refused, nothing of it is settled, and its own redemption still pays it', async () => {
    const { deps } = testContext();
    // Two users hold YES of the same market: A through its own wallet, B through its managed one.
    const { t: a, m, shares: aShares } = await externalHolding();
    const b = await managedTrader();
    const bShares = await managedBuy(b.agent, m.marketId);
    await resolveYes(m.conditionId);
    // A redeems on chain with its own node: a public hash the service has never seen.
    const hash = await redeemOnChain(a.wallet, m.conditionId);
    assert.equal(await receiptStatus(hash), 1);

    await refusedReport(b.agent, m.marketId, hash, 409, 'redemption_not_proven', 'other_wallet');
    assert.equal(await deps.models.Redemption.countDocuments({ txHash: hash }), 0, 'nothing recorded');
    const bPosition = await positionOf(b.agent, m.marketId);
    assert.equal(bPosition!.redeemable, true);
    assert.notEqual(bPosition!.status, 'settled');

    // A's own report settles A's position for what the chain paid it.
    const own = await report(a.agent, m.marketId, hash).expect(200);
    assert.deepEqual(
      [own.body.recorded, own.body.positions_settled, own.body.payout],
      [true, 1, aShares],
      JSON.stringify(own.body),
    );
    assert.equal((await positionOf(a.agent, m.marketId))!.status, 'settled');
    const replay = await report(a.agent, m.marketId, hash).expect(200);
    assert.deepEqual([replay.body.recorded, replay.body.positions_settled], [false, 0]);

    // Now recorded as A's: B is refused for that too.
    await refusedReport(b.agent, m.marketId, hash, 409, 'redemption_of_another_account');

    // B's winnings are still B's to redeem: its own transaction, its own pUSD.
    assert.equal((await positionOf(b.agent, m.marketId))!.redeemable, true);
    const before = await pusd(b.address);
    const res = await redeem(b.agent, m.marketId).expect(200);
    assert.equal(res.body.status, 'redeemed', JSON.stringify(res.body));
    assert.equal(res.body.already_redeemed, false);
    assert.notEqual(res.body.tx_hash, hash);
    assert.equal(res.body.payout, bShares);
    assert.ok(Math.abs((await pusd(b.address)) - (before + bShares)) < 1e-6);
    assert.equal((await positionOf(b.agent, m.marketId))!.status, 'settled');
  });

  it('when a report names a transaction that redeemed another market, or only part of this one, then it is refused and the position stays redeemable', async () => {
    const { deps } = testContext();
    const { t, m, shares } = await externalHolding();
    const other = await importedMarket(t.agent);
    await resolveYes(m.conditionId);
    await resolveYes(other.conditionId);
    // A successful redemption by the same wallet, of a market it holds nothing in.
    const hash = await redeemOnChain(t.wallet, other.conditionId);
    assert.equal(await receiptStatus(hash), 1);

    await refusedReport(t.agent, m.marketId, hash, 409, 'redemption_not_proven', 'other_condition');
    const p = await positionOf(t.agent, m.marketId);
    assert.equal(p!.redeemable, true);
    assert.notEqual(p!.status, 'settled');
    assert.equal(await deps.models.Redemption.countDocuments({ txHash: hash }), 0);

    // A legacy CTF redemption of the losing index set only: it succeeds, pays 0 and leaves the
    // winning shares in the wallet. Settling on it would book them as redeemed for nothing.
    const noOnly = {
      to: POLYGON_CONTRACTS.ctf,
      data: CTF_REDEEM.encodeFunctionData('redeemPositions', [
        POLYGON_CONTRACTS.usdcBridged,
        ZeroHash,
        m.conditionId,
        [2],
      ]),
      chainId: 137,
    };
    const partial = await redeemOnChain(t.wallet, m.conditionId, noOnly);
    assert.equal(await receiptStatus(partial), 1);
    await refusedReport(t.agent, m.marketId, partial, 409, 'redemption_not_proven', 'partial');
    assert.equal((await positionOf(t.agent, m.marketId))!.redeemable, true);

    // The whole balance redeemed: proven, settled for what it paid.
    const whole = await redeemOnChain(t.wallet, m.conditionId);
    const done = await report(t.agent, m.marketId, whole).expect(200);
    assert.deepEqual([done.body.recorded, done.body.payout], [true, shares], JSON.stringify(done.body));
  });

  it('when a wallet that also holds shares bought elsewhere redeems, and a stranger then sends it one micro-share of the winning token, then its report still settles the position for what its shares pay', async () => {
    const { deps } = testContext();
    const { t, m, shares } = await externalHolding();
    // 5 more YES than the position: bought elsewhere, redeemed with it, not the account's.
    await holdOnChain(t.wallet.address, m.yes, toMicro(shares) + 5_000_000);
    await resolveYes(m.conditionId);
    const hash = await redeemOnChain(t.wallet, m.conditionId);
    assert.equal(await receiptStatus(hash), 1);
    // Dust after the fact: the wallet holds a paying share again, which the receipt never saw.
    await holdOnChain(t.wallet.address, m.yes, 1);

    const done = await report(t.agent, m.marketId, hash).expect(200);
    assert.deepEqual(
      [done.body.recorded, done.body.positions_settled, done.body.payout],
      [true, 1, shares],
      JSON.stringify(done.body),
    );
    const p = await positionOf(t.agent, m.marketId);
    assert.equal(p!.status, 'settled');
    assert.equal(p!.payout, shares);
    assert.equal(
      (await deps.models.Redemption.findById(redemptionId(t.wallet.address, m.marketId)).lean())?.status,
      'redeemed',
    );
  });

  it('when a report names a redemption that reverted, or one not mined yet, then it is refused until a mined one proves it', async () => {
    const { t, m, shares } = await externalHolding();
    await resolveYes(m.conditionId);
    // Without the CTF approval the adapter cannot pull the tokens: the redemption reverts.
    await polymarketAdmin('POST', `/wallets/${t.wallet.address}/approve`, { approved: false });
    const reverted = await redeemOnChain(t.wallet, m.conditionId);
    assert.equal(await receiptStatus(reverted), 0);
    await refusedReport(t.agent, m.marketId, reverted, 409, 'redemption_reverted');
    assert.equal((await positionOf(t.agent, m.marketId))!.redeemable, true);

    await polymarketAdmin('POST', `/wallets/${t.wallet.address}/approve`);
    await polymarketAdmin('POST', '/polygon/mining', { mode: 'manual' });
    try {
      const hash = await redeemOnChain(t.wallet, m.conditionId);
      await refusedReport(t.agent, m.marketId, hash, 409, 'redemption_not_mined');
      assert.equal((await positionOf(t.agent, m.marketId))!.redeemable, true);
      await polymarketAdmin('POST', '/polygon/mine');
      const done = await report(t.agent, m.marketId, hash).expect(200);
      assert.deepEqual(
        [done.body.recorded, done.body.positions_settled, done.body.payout],
        [true, 1, shares],
        JSON.stringify(done.body),
      );
    } finally {
      await polymarketAdmin('POST', '/polygon/mining', { mode: 'instant' });
    }
    assert.equal((await positionOf(t.agent, m.marketId))!.status, 'settled');
  });

  it('when the receipt follower has settled a relayed redemption but not yet marked it redeemed, then its report is a no-op, not a refusal', async () => {
    const { deps } = testContext();
    const { t, m, shares } = await externalHolding();
    await resolveYes(m.conditionId);
    // The follower's work half done, by hand: linked at relay time, positions settled from the receipt.
    const hash = await redeemOnChain(t.wallet, m.conditionId);
    const userId = await ownerIdOf(t.agent);
    await linkRelayedRedemption(deps, { hash, userId, sender: t.wallet.address, conditionId: m.conditionId });
    await settleRedeemedPositions(deps, { userId, agentId: null, marketId: m.marketId });
    assert.equal((await deps.models.Redemption.findOne({ txHash: hash }).lean())?.status, 'sent');

    const res = await report(t.agent, m.marketId, hash).expect(200);
    assert.deepEqual(
      [res.body.recorded, res.body.positions_settled, res.body.payout],
      [false, 0, shares],
      JSON.stringify(res.body),
    );
  });

  it('auto-redeem redeems managed wallets of agents with auto_redeem_enabled, once; others are left alone', async () => {
    const ctx = testContext();
    const on = await managedTrader();
    const off = await managedTrader();
    await api()
      .patch('/api/sdk/agents/me/settings')
      .set(asAgent(off.agent))
      .send({ auto_redeem_enabled: false })
      .expect(200);
    const m = await importedMarket(on.agent);
    const shares = await managedBuy(on.agent, m.marketId);
    await managedBuy(off.agent, m.marketId);
    await resolveYes(m.conditionId);
    const [balanceOn, balanceOff] = [await pusd(on.address), await pusd(off.address)];

    const mine = async (at: Date) =>
      (await enqueueAutoRedemptions(ctx.deps, minuteSlot(at))).enqueued.filter(
        (r) => r.marketId === m.marketId,
      );
    assert.deepEqual(await mine(new Date()), [
      { userId: await ownerIdOf(on.agent), agentId: null, marketId: m.marketId },
    ]);
    const id = redemptionId(on.address, m.marketId);
    const rec = await until(
      () => ctx.deps.models.Redemption.findById(id).lean(),
      (r) => r?.status === 'redeemed',
    );
    assert.equal(rec?.status, 'redeemed');
    assert.ok(Math.abs((await pusd(on.address)) - (balanceOn + shares)) < 1e-6);
    assert.equal((await positionOf(on.agent, m.marketId))!.status, 'settled');

    // The next run finds nothing; the agent without auto-redeem still holds a redeemable position.
    assert.deepEqual(await mine(new Date(Date.now() + 60_000)), []);
    assert.equal(await pusd(off.address), balanceOff);
    assert.equal((await positionOf(off.agent, m.marketId))!.redeemable, true);
    assert.equal((await txsFrom(on.address)).filter((x) => x.selector === REDEEM_SELECTOR).length, 1);
  });

  it('a 50-50 (void) resolution on Polymarket: sim positions on the market are paid 0.5 a share, the venue position is redeemable and the CTF pays 0.5 a share', async () => {
    const { deps } = testContext();
    const { t, m, shares } = await managedHolding();
    // An agent paper-trading the same imported market on sim, holding both sides.
    const simAgent = await registerAgent();
    for (const side of ['yes', 'no'])
      assert.equal(
        (await trade(simAgent, { market_id: m.marketId, venue: 'sim', side, amount: 7 })).body.success,
        true,
      );
    const simBefore = (await deps.models.Position.findById(
      positionId(simAgent.agent_id, m.marketId, 'sim'),
    ).lean())!;

    await polymarketAdmin('POST', `/markets/${m.conditionId}/resolve`, { outcome: '50-50' });
    const reports = await checkResolutions(deps);
    assert.ok(reports.find((r) => r.venue === 'polymarket')!.voided >= 1);
    const market = await api().get(`/api/sdk/markets/${m.marketId}`).set(asAgent(t.agent)).expect(200);
    const view = market.body.market ?? market.body;
    assert.equal(view.status, 'resolved');
    assert.equal(view.outcome, null);
    assert.equal(view.current_price, 0.5);

    // Sim: settled without any operator, each share paying exactly half (rounded down per side).
    const half = (micro: number) => Math.floor(micro / 2);
    const simPaid = await until(
      () => deps.models.Position.findById(positionId(simAgent.agent_id, m.marketId, 'sim')).lean(),
      (p) => p?.status === 'settled',
    );
    assert.equal(simPaid!.payoutMicro, half(simBefore.sharesYesMicro) + half(simBefore.sharesNoMicro));
    await assertAgentConserved(simAgent.agent_id);

    // Venue: both sides redeem at 0.5 (payout vector [1,1]); the managed redemption pays half the shares.
    const before = await positionOf(t.agent, m.marketId);
    assert.equal(before!.redeemable, true);
    assert.equal(before!.redeemable_side, 'yes');
    const expected = half(toMicro(shares)) / 1e6;
    const balance = await pusd(t.address);
    const res = await redeem(t.agent, m.marketId).expect(200);
    assert.equal(res.body.status, 'redeemed', JSON.stringify(res.body));
    assert.equal(res.body.payout, expected);
    assert.ok(Math.abs((await pusd(t.address)) - (balance + expected)) < 1e-6, 'the CTF paid 0.5 a share');
    const after = await positionOf(t.agent, m.marketId);
    assert.equal(after!.status, 'settled');
    assert.equal(after!.payout, expected);
    assert.equal((await redeem(t.agent, m.marketId).expect(200)).body.already_redeemed, true);

    const audit = await api().get('/api/admin/audit').set(operator()).expect(200);
    const ours = (audit.body.differences as { id: string }[]).filter((d) =>
      [simAgent.agent_id, t.agent.agent_id, m.marketId].some((id) => d.id.includes(id)),
    );
    assert.deepEqual(ours, []);
  });

  it('a redemption relayed before the service saw the resolution and never reported settles on its own once the market resolves; a late report is a no-op', async () => {
    const { deps } = testContext();
    const { t, auth, m, shares } = await externalHolding();
    // The chain resolves (50-50) before the resolution job runs: the client redeems on its own.
    await polymarketAdmin('POST', `/markets/${m.conditionId}/resolve`, { outcome: '50-50' });
    const balance = await pusd(t.wallet.address);
    const hash = await relayedRedemptionMined(t, auth, m.conditionId);
    const expected = Math.floor(toMicro(shares) / 2) / 1e6;
    assert.ok(Math.abs((await pusd(t.wallet.address)) - (balance + expected)) < 1e-6);
    // Linked by the condition id in the calldata, and waiting for the market to resolve here.
    const id = redemptionId(t.wallet.address, m.marketId);
    const linked = await deps.models.Redemption.findById(id).lean();
    assert.equal(linked?.txHash, hash);
    assert.equal(linked?.status, 'sent');
    assert.equal(
      (await positionOf(t.agent, m.marketId))!.status,
      'active',
      'not settled before the service knows the resolution',
    );

    await checkResolutions(deps);
    const swept = await finishRelayedRedemptions(deps);
    assert.ok(swept.finished >= 1);
    const p = await positionOf(t.agent, m.marketId);
    assert.equal(p!.status, 'settled');
    assert.equal(p!.payout, expected);
    assert.equal((await finishRelayedRedemptions(deps)).finished, 0, 'settled once');

    const report = { market_id: m.marketId, side: 'yes', tx_hash: hash };
    const late = await api().post('/api/sdk/redeem/report').set(auth).send(report).expect(200);
    assert.equal(late.body.recorded, false);
    assert.equal(late.body.positions_settled, 0);
    assert.equal(late.body.payout, expected);
    const entries = await deps.models.LedgerEntry.countDocuments({
      _id: `redeem-${positionId(t.agent.agent_id, m.marketId, 'polymarket')}`,
    });
    assert.equal(entries, 1);
  });

  it('when a relayed redemption is mined and a stranger then sends the wallet one micro-share of a paying token, then the sweep still settles it and the record is redeemed, not failed', async () => {
    const { deps } = testContext();
    const { t, auth, m, shares } = await externalHolding();
    // Resolved on the chain before the service sees it, so the dust lands before the receipt is checked.
    await polymarketAdmin('POST', `/markets/${m.conditionId}/resolve`, { outcome: 'yes' });
    await relayedRedemptionMined(t, auth, m.conditionId);
    await holdOnChain(t.wallet.address, m.yes, 1);

    await checkResolutions(deps);
    await finishRelayedRedemptions(deps);
    const rec = await deps.models.Redemption.findById(redemptionId(t.wallet.address, m.marketId)).lean();
    assert.deepEqual([rec?.status, rec?.error ?? null], ['redeemed', null], JSON.stringify(rec));
    const p = await positionOf(t.agent, m.marketId);
    assert.equal(p!.status, 'settled');
    assert.equal(p!.payout, shares);
  });
});
