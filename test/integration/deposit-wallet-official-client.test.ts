import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { join, resolve } from 'node:path';
import { Wallet } from 'ethers';
import { checkResolutions } from '../../shared/domains/venue-sync/check-resolutions.js';
import { CONTRACTS, depositWalletOf } from '../emulators/polymarket/index.js';
import { testContext } from '../support/context.js';
import { claimedWithRealTrading, importedMarket } from '../support/polymarket-traders.js';
import { polymarketAdmin } from '../support/venue-emulators.js';

// The deposit-wallet acceptance of issue 26 item 5 with the official Python client (simmer-sdk
// 0.26.0, unmodified, from .cache/simmer-sdk-venv): import_polymarket_wallet() → wrap_on_dw() → a
// buy it signs as type 3 → redeem() through dw-redeem. The script prints each call and its answer
// (one JSON line per step); DW_TRACE=1 shows them.

const root = resolve(import.meta.dirname, '../..');
const venv = process.env.SIMMER_SDK_VENV ?? join(root, '.cache', 'simmer-sdk-venv');
const python = join(venv, 'bin', 'python');
const SCRIPT = join(root, 'test', 'support', 'dw_official_client.py');

interface Step {
  step: string;
  call: string;
  answer: Record<string, unknown>;
}

function runClient(phase: string, env: Record<string, string>): Promise<Step[]> {
  return new Promise((done, fail) => {
    const proc = spawn(python, [SCRIPT, phase], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stdout.on('data', (c) => (out += c));
    proc.stderr.on('data', (c) => (err += c));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 120_000);
    proc.once('error', fail);
    proc.once('close', (code) => {
      clearTimeout(timer);
      if (process.env.DW_TRACE) console.log(out, err);
      if (code !== 0) return fail(new Error(`client ${phase} exited ${code}:\n${out}\n${err}`));
      const steps = out
        .split('\n')
        .filter((l) => l.startsWith('{"step"'))
        .map((l) => JSON.parse(l) as Step);
      done(steps);
    });
  });
}

describe('Deposit wallets with the official Python client (simmer-sdk 0.26.0) #integration', function () {
  this.timeout(300_000);
  let server: Server;
  let baseUrl: string;

  before(async function () {
    if (!existsSync(python)) {
      assert.ok(!process.env.CI, 'no simmer-sdk venv: npm test installs it (scripts/setup.mjs)');
      return this.skip();
    }
    server = testContext().app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const { port } = server.address() as { port: number };
    baseUrl = `http://127.0.0.1:${port}`;
  });
  after(() => server?.close());

  it('when the client imports its wallet, wraps, trades and redeems, then everything runs from its deposit wallet', async () => {
    const { agent } = await claimedWithRealTrading();
    const owner = Wallet.createRandom();
    const m = await importedMarket(agent);
    const env = {
      SIMMER_API_URL: baseUrl,
      SIMMER_API_KEY: agent.api_key,
      WALLET_PRIVATE_KEY: owner.privateKey,
      MARKET_ID: m.marketId,
      EMULATOR_ADMIN_URL: testContext().polymarket.adminUrl,
      CLOB_URL: testContext().polymarket.clobUrl,
    };
    const dw = depositWalletOf(owner.address);
    const { ledger } = testContext().polymarket.state;

    const setup = await runClient('setup', env);
    const step = (steps: Step[], name: string) => steps.find((s) => s.step === name)!.answer;
    const imported = step(setup, 'import_polymarket_wallet');
    assert.equal(imported.success, true, JSON.stringify(imported));
    assert.equal(imported.deposit_wallet_address, dw);
    assert.equal((imported.approvals as { calls_count: number }).calls_count, 12);
    assert.ok(ledger.isApprovedForAll(dw, CONTRACTS.exchangeV2));
    const wrap = step(setup, 'wrap_on_dw');
    assert.deepEqual(wrap, { wrapped: true, amount_units: 50_000_000, calls_count: 2, success: true });
    const trade = step(setup, 'trade');
    assert.equal(trade.success, true, JSON.stringify(trade));
    const held = ledger.tokenBalance(dw, m.yes);
    assert.ok(held > 0n, 'the deposit wallet holds the shares it bought');

    await polymarketAdmin('POST', `/markets/${m.conditionId}/resolve`, { outcome: 'yes' });
    await checkResolutions(testContext().deps);
    const before = ledger.pusdBalance(dw);
    const redeemed = step(await runClient('redeem', env), 'redeem');
    assert.equal(redeemed.success, true, JSON.stringify(redeemed));
    assert.equal(ledger.tokenBalance(dw, m.yes), 0n);
    assert.equal(ledger.pusdBalance(dw), before + held);
  });
});
