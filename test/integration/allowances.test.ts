import assert from 'node:assert/strict';
import { Wallet, type HDNodeWallet } from 'ethers';
import pino from 'pino';
import { Registry } from 'prom-client';
import { REQUIRED_APPROVALS } from '../../shared/domains/venues/polymarket/onchain/approval-transactions.js';
import { readAllowances } from '../../shared/domains/venues/polymarket/onchain/allowances.js';
import { PolygonRpc } from '../../shared/domains/venues/polymarket/onchain/polygon-rpc.js';
import { VenueHttpClient } from '../../shared/infra/http/venue-http-client.js';
import { createVenueMetrics } from '../../shared/infra/http/venue-metrics.js';
import { AppError } from '../../shared/infra/errors.js';
import { testContext } from '../support/context.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { polygonProxy, polygonResult } from '../support/polygon-client.js';

type Auth = Record<string, string>;
const asAgent = (a: RegisteredAgent): Auth => ({ Authorization: `Bearer ${a.api_key}` });

async function emulatorAdmin(path: string, body?: unknown, method = 'POST'): Promise<unknown> {
  const res = await fetch(`${testContext().polymarket.adminUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  assert.ok(res.ok, `admin ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** Straight to the emulated node: the broadcast relay is another endpoint, tested on its own. */
async function nodeRpc(method: string, params: unknown[]): Promise<{ result?: unknown; error?: unknown }> {
  const res = await fetch(testContext().polymarket.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: unknown; error?: unknown };
}

const allowances = (auth: Auth, address: string, query: Record<string, string> = {}) =>
  api().get(`/api/polymarket/allowances/${address}`).query(query).set(auth);

const REQUIRED_KEYS = REQUIRED_APPROVALS.map((a) => a.key);

describe('Polygon allowances and the RPC proxy (client-contract §8.3)', () => {
  let auth: Auth;
  let mining: string;

  before(async () => {
    auth = asAgent(await registerAgent({ name: 'allowances' }));
    mining = ((await emulatorAdmin('/polygon', undefined, 'GET')) as { mining: { mode: string } }).mining
      .mode;
    await emulatorAdmin('/polygon/mining', { mode: 'manual' });
  });
  after(async () => {
    await emulatorAdmin('/polygon/mining', { mode: mining });
  });

  it('a fresh wallet: all_set false with the approvals to sign; signed, mined, then all_set true', async () => {
    const wallet: HDNodeWallet = Wallet.createRandom();

    const before = await allowances(auth, wallet.address.toLowerCase(), { include_tx_params: '1' });
    assert.equal(before.status, 200, JSON.stringify(before.body));
    assert.equal(before.body.address, wallet.address);
    assert.equal(before.body.all_set, false);
    assert.deepEqual(Object.keys(before.body.allowances).sort(), [...REQUIRED_KEYS].sort());
    assert.ok(Object.values(before.body.allowances).every((v) => v === false));
    assert.ok(REQUIRED_KEYS.every((k) => /^(pusd|ctf)_0x[0-9a-f]{40}$/.test(k)));
    assert.deepEqual([...before.body.missing].sort(), [...REQUIRED_KEYS].sort());
    const txs = before.body.transactions as { from: string; to: string; data: string; chainId: number }[];
    assert.equal(txs.length, REQUIRED_KEYS.length);
    assert.ok(txs.every((t) => t.chainId === 137 && t.from === wallet.address));

    // Without include_tx_params no transactions are built.
    const plain = await allowances(auth, wallet.address);
    assert.equal(plain.body.transactions, undefined);

    // Gas money, then nonce and fees read through the proxy as the official client does.
    await emulatorAdmin(`/polygon/accounts/${wallet.address}/fund`, { pol: 1 });
    const nonce = Number(await polygonResult(auth, 'eth_getTransactionCount', [wallet.address, 'pending']));
    const gasPrice = BigInt((await polygonResult(auth, 'eth_gasPrice')) as string);
    const tip = BigInt((await polygonResult(auth, 'eth_maxPriorityFeePerGas')) as string);
    const hashes: string[] = [];
    for (const [i, tx] of txs.entries()) {
      const gas = await polygonResult(auth, 'eth_estimateGas', [{ from: tx.from, to: tx.to, data: tx.data }]);
      const signed = await wallet.signTransaction({
        type: 2,
        chainId: tx.chainId,
        to: tx.to,
        data: tx.data,
        value: 0,
        nonce: nonce + i,
        gasLimit: BigInt(gas as string),
        maxFeePerGas: gasPrice * 2n,
        maxPriorityFeePerGas: tip,
      });
      const sent = await nodeRpc('eth_sendRawTransaction', [signed]);
      assert.equal(sent.error, undefined, JSON.stringify(sent));
      hashes.push(sent.result as string);
    }
    await emulatorAdmin('/polygon/mine', { blocks: 1 });
    for (const hash of hashes) {
      const receipt = (await polygonResult(auth, 'eth_getTransactionReceipt', [hash])) as { status: string };
      assert.equal(receipt.status, '0x1', hash);
    }

    // An incomplete answer was not cached: the plain read (the official client's check_approvals()
    // after set_approvals()) sees the approvals just mined, not the answer read before they were sent.
    const plainAfter = await allowances(auth, wallet.address);
    assert.equal(plainAfter.status, 200, JSON.stringify(plainAfter.body));
    assert.equal(plainAfter.body.all_set, true, JSON.stringify(plainAfter.body));
    assert.ok(Object.values(plainAfter.body.allowances).every((v) => v === true));
    assert.deepEqual(plainAfter.body.missing, []);
    const fresh = await allowances(auth, wallet.address, { no_cache: '1', include_tx_params: '1' });
    assert.equal(fresh.status, 200, JSON.stringify(fresh.body));
    assert.equal(fresh.body.all_set, true);
    assert.deepEqual(fresh.body.missing, []);
    assert.deepEqual(fresh.body.transactions, []);

    // A complete answer is cached: within 30 s a revocation (on the emulator's ledger) is not seen by
    // a plain read; no_cache=1 reads the chain, and its incomplete answer replaces the cached one.
    await emulatorAdmin(`/wallets/${wallet.address}/approve`, { approved: false });
    const cached = await allowances(auth, wallet.address);
    assert.equal(cached.body.all_set, true);
    assert.equal(cached.body.checked_at, fresh.body.checked_at);
    const revoked = await allowances(auth, wallet.address, { no_cache: '1' });
    assert.equal(revoked.body.all_set, false);
    const plainRevoked = await allowances(auth, wallet.address);
    assert.equal(plainRevoked.body.all_set, false);
  });

  it('refuses a malformed address and a call without an agent key', async () => {
    assert.equal((await allowances(auth, '0x1234')).status, 422);
    assert.equal(
      (await api().get(`/api/polymarket/allowances/${Wallet.createRandom().address}`)).status,
      401,
    );
    assert.equal((await api().post('/api/rpc/polygon').send({ method: 'eth_chainId' })).status, 401);
  });

  it('the proxy answers reads (eth_chainId 0x89, the caller’s id) and refuses writes with a pointer', async () => {
    const chain = await api()
      .post('/api/rpc/polygon')
      .set(auth)
      .send({ jsonrpc: '2.0', method: 'eth_chainId', params: [], id: 'abc' });
    assert.deepEqual(chain.body, { jsonrpc: '2.0', id: 'abc', result: '0x89' });

    const send = await polygonProxy(auth, 'eth_sendRawTransaction', ['0x02f8']);
    assert.equal(send.status, 200);
    assert.equal(send.body.result, undefined);
    assert.equal(send.body.error.code, -32601);
    assert.match(send.body.error.message, /\/api\/sdk\/wallet\/broadcast-tx/);

    const other = await polygonProxy(auth, 'debug_traceTransaction', ['0x00']);
    assert.equal(other.body.error.code, -32601);
    assert.match(other.body.error.message, /read and fee methods/);

    // A pending receipt is JSON null, kept as `result: null` (the client polls on it).
    const none = await polygonProxy(auth, 'eth_getTransactionReceipt', [`0x${'ab'.repeat(32)}`]);
    assert.deepEqual(none.body, { jsonrpc: '2.0', id: 1, result: null });

    // The node's own errors pass through as JSON-RPC errors.
    const bad = await polygonProxy(auth, 'eth_getBalance', ['not-an-address', 'latest']);
    assert.equal(typeof bad.body.error?.code, 'number', JSON.stringify(bad.body));
  });

  it('the proxy is rate-limited per agent (120 calls a minute), with a real 429', async () => {
    const busy = asAgent(await registerAgent({ name: 'rpc-busy' }));
    for (let i = 0; i < 120; i += 20)
      await Promise.all(Array.from({ length: 20 }, () => polygonResult(busy, 'eth_chainId')));
    const over = await polygonProxy(busy, 'eth_chainId');
    assert.equal(over.status, 429, JSON.stringify(over.body));
    // Another agent is not affected.
    assert.equal(await polygonResult(auth, 'eth_chainId'), '0x89');
  });

  it('an unreachable Polygon node is a 503 venue_unavailable', async () => {
    const registry = new Registry();
    const polygon = new PolygonRpc(
      new VenueHttpClient({
        venue: 'polygon',
        baseUrl: 'http://127.0.0.1:1',
        timeoutMs: 1000,
        retries: 0,
        metrics: createVenueMetrics(registry),
        log: pino({ level: 'silent' }),
      }),
    );
    const err = await readAllowances({ polygon, clock: () => new Date() }, Wallet.createRandom().address, {
      noCache: false,
      includeTxParams: false,
    }).then(
      () => assert.fail('should have failed'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.status, 503);
    assert.equal(err.code, 'venue_unavailable');
  });
});
