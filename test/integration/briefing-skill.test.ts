import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { pythonEnv } from '../support/simmer-backtest.js';
import { runCaptured } from '../support/run-captured.js';
import { jsonCall, runSkillCopy } from '../support/client-venv-service.js';
import { useEmulatedSkillService } from '../support/emulated-skill-service.js';

const root = resolve(import.meta.dirname, '../..');
const SKILLS = join(root, 'test', 'fixtures', 'clients', 'simmer-skills');
/** simmer-briefing's code is the ```python blocks of its SKILL.md (vendored byte for byte). */
const BRIEFING_MD = join(SKILLS, 'simmer-briefing', 'SKILL.md');
/** A published account status script (the weather trader's scripts/status.py). */
const WEATHER_DIR = join(SKILLS, 'polymarket-weather-trader');

const DIVERGENCE = { source: 'sdk:divergence', skill_slug: 'polymarket-ai-divergence' };
const COPYTRADING = { source: 'sdk:copytrading', skill_slug: 'polymarket-copytrading' };

// Issue 38, item 6: two read-only skills against npm start's program, after the agent traded on sim
// with skill sources, most of it in one market. simmer-briefing has no script: its SKILL.md's python
// blocks are its code, run as its reader runs them (test/support/run_skill_md.py: at a Python prompt,
// so what the blocks only evaluate is printed); status.py is a script. One service for both: they read
// the same trades (by_skill in the briefing, concentration and by_source in the portfolio).
describe('Briefing and status: simmer-briefing’s SKILL.md code and a status.py, unmodified, against VENUES=emulated npm start #integration', function () {
  this.timeout(600_000);
  // VENUES=emulated: the service reaches no real venue host (the agent trades on sim only).
  const { s } = useEmulatedSkillService('briefing-skill');
  let apiKey: string;
  const read = <T>(path: string) => jsonCall<T>(`${s.base}${path}`, 'GET', undefined, apiKey);

  before(async function () {
    if (!s.service) return; // skipped: no client venv
    apiKey = (
      await jsonCall<{ api_key: string }>(`${s.base}/api/sdk/agents/register`, 'POST', {
        name: 'briefing-skill',
      })
    ).api_key;
    const listed = await read<{ markets: { id: string }[] }>('/api/sdk/markets?venue=sim&limit=2');
    const [a, b] = listed.markets;
    const buy = (marketId: string, amount: number, skill: typeof DIVERGENCE) =>
      jsonCall<{ success: boolean; cost: number }>(
        `${s.base}/api/sdk/trade`,
        'POST',
        { market_id: marketId, side: 'yes', amount, venue: 'sim', ...skill },
        apiKey,
      );
    // Most of the money in one market (a sim buy is at most 500 $SIM).
    for (const [id, amount, skill] of [
      [a!.id, 400, DIVERGENCE],
      [b!.id, 50, COPYTRADING],
    ] as const) {
      const bought = await buy(id, amount, skill);
      assert.equal(bought.success, true, JSON.stringify(bought));
    }
  });

  it('when the agent traded with two skills, then the SKILL.md’s blocks print the sim venue with its by_skill and the PnL lines', async function () {
    if (!s.service) return this.skip();
    const run = await runCaptured(
      s.python,
      [
        join(root, 'test', 'support', 'run_skill_md.py'),
        BRIEFING_MD,
        '--fill',
        'sk_live_...=SIMMER_API_KEY',
        '--define',
        'last_check=LAST_CHECK',
      ],
      {
        cwd: s.scratch,
        env: {
          ...pythonEnv(s.scratch),
          SIMMER_API_URL: s.base,
          SIMMER_API_KEY: apiKey,
          LAST_CHECK: new Date(Date.now() - 3600_000).toISOString(),
        },
        timeoutMs: 120_000,
      },
    );
    const output = run.stdout + run.stderr;
    const tail = `output:\n${output}\n--- service:\n${s.service.output().slice(-3000)}`;
    assert.equal(run.code, 0, tail);
    for (const n of [1, 2, 3, 4])
      assert.match(output, new RegExp(`--- SKILL.md python block ${n} ---`), tail);
    // Block 2 evaluates briefing["venues"]["sim"]: the prompt prints it, by_skill with each skill's trade.
    assert.match(output, /\{'currency': '\$SIM', .*'positions_count': 2, /, tail);
    for (const slug of ['polymarket-ai-divergence', 'polymarket-copytrading'])
      assert.match(
        output,
        new RegExp(
          `'by_skill': \\{.*'${slug}': \\{'positions': 1, 'exposure': [\\d.]+, 'realized_pnl': 0, 'unrealized_pnl': -?[\\d.]+, 'trade_count': 1, 'pnl': -?[\\d.]+\\}`,
        ),
        tail,
      );
    // Block 3 prints the sim venue's PnL lines, as the service answers them.
    const sim = (
      await read<{ venues: { sim: { pnl: number; unrealized_pnl: number } } }>('/api/sdk/briefing')
    ).venues.sim;
    const signed = (n: number) => `${n < 0 ? '-' : '+'}${Math.abs(n).toFixed(2)}`;
    assert.match(output, new RegExp(`\\$SIM PnL: \\${signed(sim.pnl)} \\$SIM\\n`), tail);
    assert.match(
      output,
      new RegExp(`  realized: \\+0\\.00 \\$SIM  unrealized: \\${signed(sim.unrealized_pnl)} \\$SIM\\n`),
      tail,
    );
    if (process.env.BRIEFING_SKILL_TRANSCRIPT) console.log(output);
  });

  it('when most of the exposure is in one market, then status.py prints that share as a percentage of it', async function () {
    if (!s.service) return this.skip();
    const run = await runSkillCopy(s, WEATHER_DIR, join('scripts', 'status.py'), apiKey, []);
    const tail = `output:\n${run.output}\n--- service:\n${s.service.output().slice(-3000)}`;
    assert.equal(run.code, 0, tail);
    const exposure = await read<{ total_exposure: number }>('/api/sdk/portfolio');
    const total = /Total Exposure: +\$([\d,.]+)\n/.exec(run.output);
    assert.equal(total?.[1], exposure.total_exposure.toFixed(2), tail);
    assert.match(run.output, /Open Positions: +2\n/, tail);
    const divergence = /sdk:divergence: 1 positions, \$([\d,.]+)\n/.exec(run.output);
    assert.ok(divergence, tail);
    assert.match(run.output, /sdk:copytrading: 1 positions, \$[\d,.]+\n/, tail);
    // The top market is the divergence skill's: its share of the exposure, as a percentage of it.
    const share = Math.round((Number(divergence[1]) / Number(total![1])) * 100);
    assert.ok(share > 50 && share < 100, tail);
    assert.match(run.output, new RegExp(`WARNING: High concentration: ${share}% in top market\\n`), tail);
    if (process.env.BRIEFING_SKILL_TRANSCRIPT) console.log(run.output);
  });
});
