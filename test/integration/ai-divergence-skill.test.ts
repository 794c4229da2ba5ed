import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { jsonCall, runSkillCopy } from '../support/client-venv-service.js';
import {
  agentTrades,
  importedEmulatedEvent,
  useEmulatedSkillService,
} from '../support/emulated-skill-service.js';

const root = resolve(import.meta.dirname, '../..');
/** The published skill, vendored byte for byte: it runs from a copy (it writes daily_spend.json beside itself). */
const SKILL_DIR = join(root, 'test', 'fixtures', 'clients', 'simmer-skills', 'polymarket-ai-divergence');

// Issue 38's acceptance: "ai-divergence" run unmodified against VENUES=emulated npm start
// (configuration only: SIMMER_API_URL, SIMMER_API_KEY, TRADING_VENUE). The skill reads
// GET /api/sdk/markets/opportunities (our pool's YES price against the venue's) and, on sim, trades
// the side the gap points to. It reaches Gamma only with --enrich, which these runs do not pass.
describe('AI divergence: the published skill, unmodified, against VENUES=emulated npm start #integration', function () {
  this.timeout(600_000);
  const { s, polymarketAdmin } = useEmulatedSkillService('ai-divergence-skill', {
    // The crowd's price impact stays in the pool while the skill reads it (by default it halves in
    // 5 minutes as the pool re-anchors to the venue); the venue's own drift still moves both prices.
    REANCHOR_HALF_LIFE_SECONDS: String(7 * 86400),
  });

  const runSkill = (apiKey: string, args: string[], env: Record<string, string> = {}) =>
    runSkillCopy(s, SKILL_DIR, 'ai_divergence.py', apiKey, args, env);

  const register = (name: string) =>
    jsonCall<{ api_key: string }>(`${s.base}/api/sdk/agents/register`, 'POST', { name });

  it('when a sim crowd has bought a market above its venue price, then the skill reports it bullish and on sim trades YES on it', async () => {
    if (!s.service) return; // skipped: no client venv
    const admin = await polymarketAdmin();
    const crowd = await register('divergence-crowd');
    const agent = await register('ai-divergence-skill');
    const question = 'Will the BoJ raise rates in June?';
    const { marketId } = await importedEmulatedEvent(admin, s.base, crowd.api_key, question, 0.4);

    // The crowd's buy lifts our pool from the venue's 0.40 to about 0.52: a gap of ~12 cents. (Another
    // agent than the skill's, which skips markets it already holds.)
    const crowdBuy = await jsonCall<{ success: boolean; new_price: number }>(
      `${s.base}/api/sdk/trade`,
      'POST',
      { market_id: marketId, side: 'yes', amount: 495, venue: 'sim' },
      crowd.api_key,
    );
    assert.ok(crowdBuy.success);

    // The scanner (the default dry run): the table, the summary and the top opportunity.
    const scan = await runSkill(agent.api_key, []);
    const scanTail = `skill output:\n${scan.output}\n--- service:\n${s.service.output().slice(-3000)}`;
    assert.equal(scan.code, 0, scanTail);
    const row =
      /Will the BoJ raise rates in June\?\s+(\d+\.\d)%\s+(\d+\.\d)%\s+\+(\d+\.\d)%\s+crowd 🟡 AI>MKT/.exec(
        scan.output,
      );
    assert.ok(row, scanTail);
    const [pool, venue, gap] = row.slice(1).map(Number) as [number, number, number];
    // The venue drifts by a few ticks on its own; the gap follows the crowd's buy.
    assert.ok(pool > venue && gap >= 10 && gap <= 14, scanTail);
    assert.match(scan.output, /Showing 1 of 1 markets with divergence/, scanTail);
    const summary = /📊 Summary: 1 bullish, 0 bearish, avg divergence (\d+\.\d)%/.exec(scan.output);
    assert.ok(summary, scanTail);
    assert.equal(Number(summary[1]), gap, scanTail);
    assert.match(scan.output, /📌 Will the BoJ raise rates in June\?/, scanTail);
    assert.match(scan.output, /Simmer AI: \d+% vs Polymarket: \d+% — do your own research before trading/);
    assert.match(scan.output, /Divergence: \+\d+\.\d% \| Resolves: \d{4}-\d\d-\d\d/, scanTail);
    assert.doesNotMatch(
      scan.output,
      /Divergence Trading/,
      'a scan without --live on polymarket trades nothing',
    );

    // On sim with --live: the opportunity is traded through POST /api/sdk/trade (Kelly-sized).
    const live = await runSkill(agent.api_key, ['--live', '--opportunities'], { TRADING_VENUE: 'sim' });
    const liveTail = `skill output:\n${live.output}\n--- service:\n${s.service.output().slice(-3000)}`;
    assert.equal(live.code, 0, liveTail);
    const trading = /🎯 Trading YES \$(\d+\.\d\d) on /.exec(live.output);
    assert.ok(trading, liveTail);
    const bought = /✅ Bought (\d+\.\d) YES shares/.exec(live.output);
    assert.ok(bought, liveTail);
    assert.match(live.output, /Signals: 1 \| Attempted: 1 \| Executed: 1/, liveTail);

    const trades = await agentTrades(s.base, agent.api_key);
    assert.equal(trades.length, 1, JSON.stringify(trades));
    const trade = trades[0]!;
    assert.equal(trade.market_id, marketId);
    assert.equal(trade.venue, 'sim');
    assert.equal(trade.action, 'buy');
    assert.equal(trade.side, 'yes');
    assert.equal(trade.source, 'sdk:divergence');
    assert.equal(trade.skill_slug, 'polymarket-ai-divergence');
    assert.equal(trade.amount, Number(trading[1]));
    assert.equal(trade.shares.toFixed(1), bought[1]);
  });
});
