import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runCaptured } from '../support/run-captured.js';
import { useClientVenvService } from '../support/client-venv-service.js';
import { pythonEnv } from '../support/simmer-backtest.js';

const root = resolve(import.meta.dirname, '../..');
const SCRIPT = join(root, 'scripts', 'reactor-acceptance.py');
/** The vendored reactor MCP client's package (simmer_reactor_mcp), importable with this on PYTHONPATH. */
const MCP_CLIENT = join(root, 'test', 'fixtures', 'clients', 'simmer-reactor-mcp');

/** What scripts/reactor-acceptance.py writes with --json-out. */
interface ReactorAcceptance {
  sdk_version: string;
  tx_hash?: string;
  whale_buy?: { success: boolean; shares_bought: number };
  signal?: {
    signal_id: string;
    tx_hash: string;
    side: string;
    action: string;
    venue: string;
    amount: number;
  } | null;
  mcp_event?: { whale_wallet: string; side: string; size: number | string } | null;
  latency_ms?: { mined_to_pending: number | null; mined_to_sse: number | null };
  skill_output?: string;
  skill_exit?: number;
  mirror_trades?: { source: string; venue: string }[];
  reactions?: { decision: string; event_tx_hash: string; trade_id: string | null }[];
  mcp_log?: string[];
  checks: { check: string; ok: boolean; detail?: unknown }[];
}

// Issue 37's acceptance: against `VENUES=emulated npm start`, a second agent trades a Polymarket
// market with its own key through the official client; for a follower watching that wallet on sim,
// the published polymarket-copytrading skill, unmodified, run as `--reactor --once`, mirrors the
// trade, deletes the signal and records the reaction; the reactor MCP client's own SSE consumer
// receives the event. The script (scripts/reactor-acceptance.py) runs the vendored clients' own
// code (test/fixtures/clients) and records what they did; this test checks its record.
describe('Reactor: the copytrading skill and the reactor MCP client, unmodified, follow a whale trading through the official client against VENUES=emulated npm start #integration', function () {
  this.timeout(600_000);
  const ctx = useClientVenvService('reactor-acceptance', (url) => ({
    VENUES: 'emulated',
    PUBLIC_BASE_URL: url,
  }));

  it('when a whale buys on Polymarket with the official client and its block is mined, then the follower has a sim signal in pending, the MCP client buffers the reactor_event, and the skill run as --reactor --once mirrors it on sim, deletes the signal and records the reaction', async () => {
    const out = join(ctx.scratch, 'result.json');
    const run = await runCaptured(
      ctx.python,
      [SCRIPT, '--base-url', ctx.base, '--data-dir', ctx.dataDir, '--json-out', out],
      {
        cwd: root,
        env: { ...pythonEnv(mkdtempSync(join(ctx.scratch, 'home-'))), PYTHONPATH: MCP_CLIENT },
        timeoutMs: 300_000,
      },
    );
    const output = run.stdout + run.stderr;
    const tail = `script output:\n${output.slice(-12_000)}\n--- service output:\n${ctx.service.output().slice(-4000)}`;
    assert.ok(existsSync(out), `the script wrote no result (exit ${run.code}):\n${tail}`);
    const result = JSON.parse(readFileSync(out, 'utf8')) as ReactorAcceptance;
    // The figures and both clients' output, for the acceptance note.
    console.log(
      `      latencies: fill mined → signal in pending ${result.latency_ms?.mined_to_pending} ms, → SSE event at the MCP client ${result.latency_ms?.mined_to_sse} ms`,
    );
    assert.equal(result.sdk_version, '0.26.0', tail);
    assert.equal(result.whale_buy?.success, true, tail);

    const tx = result.tx_hash;
    assert.match(tx ?? '', /^0x[0-9a-f]{64}$/, tail);
    assert.equal(result.signal?.tx_hash.toLowerCase(), tx, tail);
    assert.equal(result.signal?.venue, 'sim', tail);
    assert.equal(result.signal?.side, 'yes', tail);
    assert.equal(result.signal?.action, 'buy', tail);
    assert.equal(result.mcp_event?.side, 'BUY', tail);

    assert.equal(result.skill_exit, 0, tail);
    assert.match(result.skill_output ?? '', /\[reactor\] 1 pending signal\(s\)/, tail);
    assert.match(result.skill_output ?? '', /\[reactor\] ✅ .* mirrored [\d.]+ USD/, tail);
    assert.equal(result.mirror_trades?.length, 1, tail);
    assert.equal(result.mirror_trades?.[0]?.source, 'sdk:copytrading:reactor', tail);
    assert.equal(result.mirror_trades?.[0]?.venue, 'sim', tail);
    assert.equal(result.reactions?.[0]?.decision, 'mirrored', tail);
    assert.equal(result.reactions?.[0]?.event_tx_hash.toLowerCase(), tx, tail);

    const failed = result.checks.filter((c) => !c.ok);
    assert.deepEqual(failed, [], tail);
    assert.equal(run.code, 0, tail);
  });
});
