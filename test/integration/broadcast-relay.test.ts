import assert from 'node:assert/strict';
import { Contract, Interface, JsonRpcProvider, Network, Transaction, Wallet } from 'ethers';
import {
  approvalTransactions,
  REQUIRED_APPROVALS,
} from '../../shared/domains/venues/polymarket/onchain/approval-transactions.js';
import { POLYGON_CONTRACTS } from '../../shared/domains/venues/polymarket/onchain/polygon-contracts.js';
import { testContext } from '../support/context.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { CLIENT_APPROVALS, CLIENT_CTF, CLIENT_PUSD, CLIENT_SPENDERS } from '../support/client-approvals.js';
import { relayTx, signAsClient } from '../support/polygon-client.js';
import { asAgent, claimedAgent, linkExternalWallet } from '../support/polymarket-traders.js';
import { until } from '../support/until.js';
import { polymarketAdmin } from '../support/venue-emulators.js';

/** The emulator's chain, as a client would reach it (a bare network: no gas-station lookups). */
const provider = () =>
  new JsonRpcProvider(testContext().polymarket.rpcUrl, new Network('polygon-emulated', 137n), {
    staticNetwork: true,
    cacheTimeout: -1,
  });

interface NodeTx {
  hash: string;
  status: string;
  receipt_status: number | null;
}
const nodeTxsFrom = (address: string) =>
  polymarketAdmin<NodeTx[]>('GET', `/polygon/transactions?from=${address.toLowerCase()}`);

/** A claimed agent whose human linked `wallet` (funded with POL for gas). */
async function linkedAgent() {
  const { agent, token } = await claimedAgent();
  const wallet = Wallet.createRandom() as unknown as Wallet;
  await linkExternalWallet(agent, wallet);
  await polymarketAdmin('POST', `/polygon/accounts/${wallet.address}/fund`, { pol: 1 });
  return { agent, token, wallet };
}

/** Signs `to`/`data` as an EIP-1559 transaction with the nonce and fees the emulator's RPC gives. */
async function sign(wallet: Wallet, to: string, data: string) {
  const rpc = provider();
  const fees = await rpc.getFeeData();
  return wallet.signTransaction({
    type: 2,
    chainId: 137,
    to,
    data,
    nonce: await rpc.getTransactionCount(wallet.address, 'pending'),
    gasLimit: 100_000n,
    maxFeePerGas: fees.maxFeePerGas!,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas!,
  });
}

const relay = (agent: RegisteredAgent, signedTx: string) => relayTx(asAgent(agent), signedTx);

describe('broadcast relay (POST /api/sdk/wallet/broadcast-tx)', () => {
  before(() => polymarketAdmin('POST', '/polygon/mining', { mode: 'manual' }));
  after(() => polymarketAdmin('POST', '/polygon/mining', { mode: 'interval' }));

  it('when a linked wallet relays a signed approval, then it is recorded, sent, mined and the allowance is on-chain; sending it again is one record', async () => {
    const { agent, wallet } = await linkedAgent();
    const approval = REQUIRED_APPROVALS.find((a) => a.token === 'pusd')!;
    const [unsigned] = approvalTransactions(wallet.address, [approval.key]);
    const raw = await sign(wallet, unsigned!.to, unsigned!.data);

    const first = await relay(agent, raw).expect(200);
    assert.equal(first.body.success, true, JSON.stringify(first.body));
    assert.equal(first.body.status, 'sent', JSON.stringify(first.body));
    const hash = first.body.tx_hash as string;

    // Still in the pool: the node answers `already known`, which is success.
    const again = await relay(agent, raw).expect(200);
    assert.equal(again.body.success, true, JSON.stringify(again.body));
    assert.equal(again.body.tx_hash, hash);

    await polymarketAdmin('POST', '/polygon/mine');
    const { TxBroadcast } = testContext().deps.models;
    const mined = await until(
      () => TxBroadcast.findById(hash).lean(),
      (r) => r?.status === 'mined',
    );
    assert.equal(mined?.status, 'mined', JSON.stringify(mined));
    assert.equal(mined?.receiptStatus, 1);
    assert.equal(mined?.kind, unsigned!.kind);
    assert.equal(mined?.sender, wallet.address);

    const pusd = new Contract(
      POLYGON_CONTRACTS.pusd,
      ['function allowance(address,address) view returns (uint256)'],
      provider(),
    );
    assert.ok((await pusd.getFunction('allowance')(wallet.address, approval.spender)) > 0n);

    // Mined: a third send meets `nonce too low`, still success, and the record stays mined.
    const third = await relay(agent, raw).expect(200);
    assert.equal(third.body.success, true, JSON.stringify(third.body));
    assert.equal(third.body.status, 'mined', JSON.stringify(third.body));
    assert.equal(await TxBroadcast.countDocuments({ _id: hash }), 1);
    const nodeTxs = await nodeTxsFrom(wallet.address);
    assert.equal(nodeTxs.length, 1, JSON.stringify(nodeTxs));
    assert.equal(nodeTxs[0]!.receipt_status, 1);

    const list = await api().get('/api/sdk/wallet/broadcasts?limit=5').set(asAgent(agent)).expect(200);
    assert.deepEqual(
      list.body.broadcasts.map((b: { tx_hash: string; status: string }) => [b.tx_hash, b.status]),
      [[hash, 'mined']],
    );
  });

  it('when a signed approval is relayed without its 0x prefix (client-contract §10.22), then the checked bytes are the ones sent, and it is mined', async () => {
    const { agent, wallet } = await linkedAgent();
    const approval = REQUIRED_APPROVALS.find((a) => a.token === 'pusd')!;
    const [unsigned] = approvalTransactions(wallet.address, [approval.key]);
    const raw = await sign(wallet, unsigned!.to, unsigned!.data);

    const res = await relay(agent, raw.slice(2).toUpperCase()).expect(200);
    assert.equal(res.body.success, true, JSON.stringify(res.body));
    assert.equal(res.body.status, 'sent', JSON.stringify(res.body));
    const hash = res.body.tx_hash as string;
    const record = await testContext().deps.models.TxBroadcast.findById(hash).lean();
    assert.equal(record?.raw, raw.toLowerCase());

    await polymarketAdmin('POST', '/polygon/mine');
    const nodeTxs = await nodeTxsFrom(wallet.address);
    assert.deepEqual(
      nodeTxs.map((t) => [t.hash, t.receipt_status]),
      [[hash, 1]],
    );
  });

  it('when an approval recorded without its 0x before the fix (and refused by the node) is relayed again, then the checked bytes are sent and it is mined', async () => {
    const { agent, wallet } = await linkedAgent();
    const approval = REQUIRED_APPROVALS.find((a) => a.token === 'pusd')!;
    const [unsigned] = approvalTransactions(wallet.address, [approval.key]);
    const raw = await sign(wallet, unsigned!.to, unsigned!.data);
    const hash = Transaction.from(raw).hash!;
    const { TxBroadcast } = testContext().deps.models;
    await TxBroadcast.create({
      _id: hash,
      userId: (await testContext().deps.models.Agent.findById(agent.agent_id).lean())!.claimedBy!,
      agentId: agent.agent_id,
      sender: wallet.address,
      to: unsigned!.to,
      kind: unsigned!.kind,
      nonce: 0,
      raw: raw.slice(2),
      status: 'failed',
      error: 'invalid argument 0: hex string expected',
      requests: 1,
    });

    const res = await relay(agent, raw.slice(2)).expect(200);
    assert.equal(res.body.success, true, JSON.stringify(res.body));
    await polymarketAdmin('POST', '/polygon/mine');
    assert.deepEqual(
      (await nodeTxsFrom(wallet.address)).map((t) => [t.hash, t.receipt_status]),
      [[hash, 1]],
    );
  });

  it('when the same transaction is relayed twice at once, then both answer success and it is one record', async () => {
    const { agent, wallet } = await linkedAgent();
    const approval = REQUIRED_APPROVALS.find((a) => a.token === 'pusd')!;
    const [unsigned] = approvalTransactions(wallet.address, [approval.key]);
    const raw = await sign(wallet, unsigned!.to, unsigned!.data);
    const both = await Promise.all([relay(agent, raw), relay(agent, raw)]);
    for (const res of both) {
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.success, true, JSON.stringify(res.body));
    }
    const { models } = testContext().deps;
    const record = (await models.TxBroadcast.findById(both[0]!.body.tx_hash).lean())!;
    assert.equal(record.requests, 2);
    assert.equal((await nodeTxsFrom(wallet.address)).length, 1);
  });

  it("when a linked wallet relays the official client's 12 approvals (legacy and EIP-1559), then all are mined and the allowances answer all_set true for exactly those 12", async () => {
    const { agent, wallet } = await linkedAgent();
    const auth = asAgent(agent);
    const allowances = (query: Record<string, string> = {}) =>
      api().get(`/api/polymarket/allowances/${wallet.address}`).query(query).set(auth).expect(200);
    const keys = CLIENT_APPROVALS.map((a) => a.key).sort();
    const before = await allowances({ no_cache: '1' });
    assert.equal(before.body.all_set, false);
    assert.deepEqual([...before.body.missing].sort(), keys);

    const hashes: string[] = [];
    for (const [i, a] of CLIENT_APPROVALS.entries()) {
      // The Python client signs legacy transactions; other wallets sign EIP-1559: both relay.
      const raw =
        i % 2 === 0
          ? await signAsClient(auth, wallet, { to: a.to, data: a.data, chainId: 137 })
          : await sign(wallet, a.to, a.data);
      const res = await relay(agent, raw).expect(200);
      assert.equal(res.body.success, true, `${a.key}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.kind, a.to === CLIENT_CTF ? 'approve-ctf-operator' : 'approve-collateral');
      hashes.push(res.body.tx_hash as string);
    }
    await polymarketAdmin('POST', '/polygon/mine');
    const nodeTxs = await nodeTxsFrom(wallet.address);
    assert.deepEqual(nodeTxs.map((t) => [t.hash, t.receipt_status]).sort(), hashes.map((h) => [h, 1]).sort());

    const after = await allowances({ no_cache: '1' });
    assert.equal(after.body.all_set, true, JSON.stringify(after.body));
    assert.deepEqual(Object.keys(after.body.allowances).sort(), keys);
    assert.deepEqual(after.body.missing, []);
  });

  it('when anything but those approvals involves Exchange B or the fee escrow, then it is refused with its code and never sent', async () => {
    const { agent, wallet } = await linkedAgent();
    const abi = new Interface([
      'function approve(address,uint256)',
      'function transfer(address,uint256)',
      'function transferFrom(address,address,uint256)',
      'function setApprovalForAll(address,bool)',
      'function safeTransferFrom(address,address,uint256,uint256,bytes)',
    ]);
    const S = CLIENT_SPENDERS;
    const cases: [string, string, string][] = [
      [
        CLIENT_PUSD,
        abi.encodeFunctionData('transfer', [S.negRiskExchangeB, 1_000_000n]),
        'transfer_not_allowed',
      ],
      [
        CLIENT_PUSD,
        abi.encodeFunctionData('transferFrom', [wallet.address, S.feeEscrowV2, 1n]),
        'transfer_from_not_allowed',
      ],
      [
        CLIENT_CTF,
        abi.encodeFunctionData('safeTransferFrom', [wallet.address, S.negRiskExchangeB, 1n, 1n, '0x']),
        'safe_transfer_not_allowed',
      ],
      [CLIENT_CTF, abi.encodeFunctionData('setApprovalForAll', [S.feeEscrowV2, true]), 'unknown_operator'],
      [
        POLYGON_CONTRACTS.usdcBridged,
        abi.encodeFunctionData('approve', [S.negRiskExchangeB, 1n]),
        'unknown_spender',
      ],
      [
        CLIENT_PUSD,
        abi.encodeFunctionData('approve', [Wallet.createRandom().address, 1n]),
        'unknown_spender',
      ],
      [S.feeEscrowV2, abi.encodeFunctionData('approve', [S.feeEscrowV2, 1n]), 'contract_not_allowed'],
      [S.negRiskExchangeB, '0x12345678', 'contract_not_allowed'],
    ];
    for (const [to, data, code] of cases) {
      const res = await relay(agent, await sign(wallet, to, data)).expect(400);
      assert.equal(res.body.error_code, code, `${to} ${data.slice(0, 10)}: ${JSON.stringify(res.body)}`);
    }
    assert.deepEqual(await nodeTxsFrom(wallet.address), []);
    assert.equal(await testContext().deps.models.TxBroadcast.countDocuments({ sender: wallet.address }), 0);
  });

  it('when the transaction is a pUSD transfer, then it is refused with the allow-list code and the node never sees it', async () => {
    const { agent, wallet } = await linkedAgent();
    const data = new Interface(['function transfer(address,uint256)']).encodeFunctionData('transfer', [
      Wallet.createRandom().address,
      1_000_000n,
    ]);
    const res = await relay(agent, await sign(wallet, POLYGON_CONTRACTS.pusd, data)).expect(400);
    assert.equal(res.body.error_code, 'transfer_not_allowed', JSON.stringify(res.body));
    assert.ok(res.body.fix, JSON.stringify(res.body));
    assert.deepEqual(await nodeTxsFrom(wallet.address), []);
    assert.equal(await testContext().deps.models.TxBroadcast.countDocuments({ sender: wallet.address }), 0);
  });

  it('when the approval is signed by a wallet other than the linked one, then it is refused (403) and not sent', async () => {
    const { agent } = await linkedAgent();
    const stranger = Wallet.createRandom() as unknown as Wallet;
    const [unsigned] = approvalTransactions(stranger.address, [REQUIRED_APPROVALS[0]!.key]);
    const res = await relay(agent, await sign(stranger, unsigned!.to, unsigned!.data)).expect(403);
    assert.equal(res.body.error_code, 'sender_mismatch', JSON.stringify(res.body));
    assert.deepEqual(await nodeTxsFrom(stranger.address), []);
  });

  it('when the agent is unclaimed, then it is refused with the claim URL', async () => {
    const agent = await registerAgent();
    const wallet = Wallet.createRandom() as unknown as Wallet;
    const [unsigned] = approvalTransactions(wallet.address, [REQUIRED_APPROVALS[0]!.key]);
    const res = await relay(agent, await sign(wallet, unsigned!.to, unsigned!.data)).expect(403);
    assert.equal(res.body.error_code, 'agent_not_claimed', JSON.stringify(res.body));
    assert.match(res.body.claim_url, /claim/);
    assert.deepEqual(await nodeTxsFrom(wallet.address), []);
  });
});
