import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { Wallet } from 'ethers';
import {
  jsonCall,
  polymarketEmulatorAdmin,
  runSkillCopy,
  useClientVenvService,
} from '../support/client-venv-service.js';

const root = resolve(import.meta.dirname, '../..');
/** The published skill, vendored byte for byte: it runs from a copy (it may write config.json beside itself). */
const SKILL_DIR = join(root, 'test', 'fixtures', 'clients', 'simmer-skills', 'polymarket-copytrading');

interface EmulatedMarket {
  condition_id: string;
  token_ids: string[];
}

// Issue 37's acceptance: "the copytrading skill in its polling mode, unmodified, with its output".
// The skill asks POST /api/sdk/copytrading/execute for the plan (always dry_run) and, with --live,
// trades each planned trade itself with the official client's trade().
describe('Copytrading: the published skill in polling mode, unmodified, against VENUES=emulated npm start #integration', function () {
  this.timeout(600_000);
  const operatorToken = randomBytes(24).toString('base64url');
  const s = useClientVenvService('copytrading-skill', (url) => ({
    VENUES: 'emulated',
    PUBLIC_BASE_URL: url,
    OPERATOR_TOKEN: operatorToken,
  }));

  const call = jsonCall;

  const emulatorAdmin = () => polymarketEmulatorAdmin(s.base, operatorToken);

  const runSkill = (apiKey: string, args: string[]) =>
    runSkillCopy(s, SKILL_DIR, 'copytrading_trader.py', apiKey, args);

  it('when the skill plans for two whales and then runs --live on sim, then it prints the analysis, trades each planned buy and the agent holds the copies', async () => {
    const admin = await emulatorAdmin();
    const event = (yes: number) =>
      call<{ markets: EmulatedMarket[] }>(`${admin}/events`, 'POST', {
        title: `Copied market ${randomBytes(4).toString('hex')}?`,
        outcomes: ['Yes', 'No'],
        prices: [yes],
      }).then((e) => e.markets[0]!);
    const [agreed, lone, conflict] = [await event(0.6), await event(0.35), await event(0.5)];
    const [w1, w2] = [Wallet.createRandom().address, Wallet.createRandom().address];
    const hold = (w: string, token: string, shares: number) =>
      call(`${admin}/wallets/${w}/fund`, 'POST', { tokens: { [token]: shares } });
    await hold(w1, agreed.token_ids[0]!, 200);
    await hold(w2, agreed.token_ids[0]!, 100);
    await hold(w1, lone.token_ids[0]!, 100);
    await hold(w1, conflict.token_ids[0]!, 100);
    await hold(w2, conflict.token_ids[1]!, 100);
    const agent = await call<{ api_key: string; agent_id: string }>(
      `${s.base}/api/sdk/agents/register`,
      'POST',
      { name: 'copytrading-skill' },
    );
    const args = ['--wallets', `${w1},${w2}`, '--venue', 'sim'];

    const dry = await runSkill(agent.api_key, args);
    const dryTail = `skill output (dry run):\n${dry.output}\n--- service:\n${s.service.output().slice(-3000)}`;
    assert.equal(dry.code, 0, dryTail);
    assert.match(dry.output, /\[DRY RUN\]/, dryTail);
    assert.match(dry.output, /Wallets analyzed: 2\n/, dryTail);
    assert.match(dry.output, /Positions found: 5\n/, dryTail);
    assert.match(dry.output, /Conflicts skipped: 1\n/, dryTail);
    assert.match(dry.output, /Top N used: 50\n/, dryTail);
    assert.match(dry.output, /Trades \(0\/2 executed\)/, dryTail);
    assert.match(dry.output, /BUY [\d.]+ YES @ \$0\.6\d\d \(\$50\.00\)/, dryTail);
    assert.match(dry.output, /Remove --dry-run to execute trades/, dryTail);
    const none = await call<{ positions: unknown[] }>(
      `${s.base}/api/sdk/positions?venue=sim`,
      'GET',
      undefined,
      agent.api_key,
    );
    assert.deepEqual(none.positions, [], dryTail);

    const live = await runSkill(agent.api_key, [...args, '--live']);
    const liveTail = `skill output (--live):\n${live.output}\n--- service:\n${s.service.output().slice(-3000)}`;
    assert.equal(live.code, 0, liveTail);
    assert.match(live.output, /Trades \(2\/2 executed\)/, liveTail);
    assert.match(live.output, /Successfully mirrored positions!/, liveTail);

    const held = await call<{ positions: { market_id: string; shares_yes: number; sources: string[] }[] }>(
      `${s.base}/api/sdk/positions?venue=sim`,
      'GET',
      undefined,
      agent.api_key,
    );
    assert.equal(held.positions.length, 2, liveTail);
    for (const p of held.positions) {
      assert.ok(p.shares_yes > 0, JSON.stringify(p));
      assert.deepEqual(p.sources, ['sdk:copytrading'], JSON.stringify(p));
    }
    const trades = await call<{ trades: { source: string; skill_slug: string; venue: string }[] }>(
      `${s.base}/api/sdk/trades?limit=10`,
      'GET',
      undefined,
      agent.api_key,
    );
    assert.deepEqual(
      trades.trades.map((t) => [t.source, t.skill_slug, t.venue]),
      [
        ['sdk:copytrading', 'polymarket-copytrading', 'sim'],
        ['sdk:copytrading', 'polymarket-copytrading', 'sim'],
      ],
    );

    // In line with the whales now: the next run has nothing to trade.
    const again = await runSkill(agent.api_key, [...args, '--live']);
    assert.equal(again.code, 0, again.output);
    assert.doesNotMatch(again.output, /📈 Trades/, again.output);
    assert.match(again.output, /Scan complete/, again.output);

    if (process.env.COPYTRADING_SKILL_TRANSCRIPT)
      console.log(
        `${dry.output}\n======== --live ========\n${live.output}\n======== again ========\n${again.output}`,
      );
  });
});
