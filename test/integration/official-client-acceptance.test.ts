import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runCaptured } from '../support/run-captured.js';
import { useClientVenvService } from '../support/client-venv-service.js';
import { pythonEnv } from '../support/simmer-backtest.js';

const root = resolve(import.meta.dirname, '../..');
const SCRIPT = join(root, 'scripts', 'official-client-acceptance.py');

/** What scripts/official-client-acceptance.py writes with --json-out. */
interface AcceptanceResult {
  sdk_version: string;
  set_approvals?: { set: number; skipped: number; failed: number };
  all_set?: boolean;
  ensure_can_trade?: { ok: boolean; reason: string; balance: number; collateral: string };
  polymarket_buy?: { success: boolean; shares_bought: number; fill_status: string };
  set_monitor?: { success: boolean; stop_loss_pct: number };
  delete_monitor?: { success: boolean; venue?: string };
  clawdbot_delivery?: { type: string | null; signed: boolean; chat_id: string | null };
  checks: { check: string; ok: boolean; detail?: unknown }[];
}

/** Runs the script with the client venv's Python and a clean environment; its exit and output. */
async function runAcceptance(python: string, args: string[], home: string) {
  const run = await runCaptured(python, [SCRIPT, ...args], {
    cwd: root,
    env: pythonEnv(home),
    timeoutMs: 300_000,
  });
  return { code: run.code, output: run.stdout + run.stderr };
}

// Issue 26's acceptance: "with the official client and a new EVM key against `VENUES=emulated npm
// start`: set_approvals() → 12 set, 0 failed; check_approvals() → all_set: true; ensure_can_trade()
// ok with the funded pUSD balance shown; a buy, a stop-loss set on a sim position with set_monitor
// and removed with delete_monitor; update_settings(clawdbot_webhook_url=…) accepted and a delivery
// seen." The script drives the client (scripts/official-client-acceptance.py); this test runs it
// against npm start's program and checks what it recorded.
describe('the official Python client (simmer-sdk 0.26.0) with a new EVM key against VENUES=emulated npm start #integration', function () {
  this.timeout(600_000);
  const ctx = useClientVenvService('official-client', (url) => ({
    VENUES: 'emulated',
    // The chat bridge receiver of the script listens on 127.0.0.1: loopback is allowed for tests and
    // local demos only (the SSRF guard is otherwise unchanged).
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    PUBLIC_BASE_URL: url,
  }));

  it('when a new user links a new key with the client, then set_approvals sets 12, all_set is true, ensure_can_trade shows the funded pUSD, a client-signed buy fills, a stop-loss on a sim position is set and removed, and the chat bridge gets a signed delivery', async () => {
    const out = join(ctx.scratch, 'result.json');
    const home = mkdtempSync(join(ctx.scratch, 'home-'));
    const run = await runAcceptance(
      ctx.python,
      ['--base-url', ctx.base, '--data-dir', ctx.dataDir, '--json-out', out],
      home,
    );
    const tail = `script output:\n${run.output.slice(-8000)}`;
    assert.ok(existsSync(out), `the script wrote no result (exit ${run.code}):\n${tail}`);
    const result = JSON.parse(readFileSync(out, 'utf8')) as AcceptanceResult;
    assert.equal(result.sdk_version, '0.26.0', tail);

    assert.deepEqual(result.set_approvals, { set: 12, skipped: 0, failed: 0 }, tail);
    assert.equal(result.all_set, true, tail);

    const can = result.ensure_can_trade;
    assert.ok(can, tail);
    assert.equal(can.ok, true, tail);
    assert.equal(can.reason, 'ok', tail);
    assert.equal(can.collateral, 'pUSD', tail);
    // The script funds the new wallet with exactly 1000 pUSD on the emulator before the check.
    assert.equal(can.balance, 1000, tail);

    assert.equal(result.polymarket_buy?.success, true, tail);
    assert.ok((result.polymarket_buy?.shares_bought ?? 0) > 0, tail);

    assert.equal(result.set_monitor?.success, true, tail);
    assert.equal(result.set_monitor?.stop_loss_pct, 0.25, tail);
    assert.equal(result.delete_monitor?.success, true, tail);
    assert.equal(result.delete_monitor?.venue, 'sim', tail);

    assert.deepEqual(result.clawdbot_delivery?.type, 'trade.executed', tail);
    assert.equal(result.clawdbot_delivery?.signed, true, tail);
    assert.match(result.clawdbot_delivery?.chat_id ?? '', /^acceptance-/, tail);

    const failed = result.checks.filter((c) => !c.ok);
    assert.deepEqual(failed, [], tail);
    assert.ok(result.checks.length >= 12, tail);
    assert.equal(run.code, 0, tail);
  });
});
