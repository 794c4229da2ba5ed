import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { Wallet } from 'ethers';
import { jsonCall, runSkillCopy } from '../support/client-venv-service.js';
import { emulatedEvent, useEmulatedSkillService } from '../support/emulated-skill-service.js';
import { until } from '../support/until.js';

const root = resolve(import.meta.dirname, '../..');
/** The published skill, vendored byte for byte: it runs from a copy (it may write config.json beside itself). */
const SKILL_DIR = join(
  root,
  'test',
  'fixtures',
  'clients',
  'simmer-skills',
  'polymarket-worldcup-copytrader',
);
/** The skill's default WC_COPYTRADER_MIN_LEADERS: a smaller curated set makes it exit without trading. */
const LEADERS = 5;
/** The copy backtest places each copy 30 s after the leader's fill (copy-backtest.ts COPY_DELAY_SECONDS). */
const AFTER_COPY_DELAY_MS = 35_000;

interface CopyLeaders {
  leaders: { wallet: string; trade_count: number; backtest_copy_pnl_usdc: number }[];
  refreshed_at: string;
}

// Issue 38: the worldcup copytrader, unmodified (configuration only: SIMMER_API_URL, SIMMER_API_KEY),
// trades. It reads the curated leaders (GET /api/sdk/wc/copy-leaders: the daily backtest of the
// fill feed's record), scopes itself to World Cup markets by the venue's tag slug
// (GET /api/sdk/markets?tags=world-cup), asks for the plan with those market_ids and trades it on sim
// (its default venue) with trade().
describe('World Cup copytrader: the published skill, unmodified, against VENUES=emulated npm start #integration', function () {
  this.timeout(600_000);
  const { s, operatorToken, polymarketAdmin } = useEmulatedSkillService('worldcup-copytrader-skill');

  const call = jsonCall;
  const runSkill = (apiKey: string, args: string[]) =>
    runSkillCopy(s, SKILL_DIR, 'copytrader.py', apiKey, args);

  it('when five wallets earned on a World Cup market and hold it, then the skill lists them, plans the copy and trades it on sim, leaving their other sports market alone', async () => {
    if (!s.service) return; // skipped: no client venv
    const admin = await polymarketAdmin();
    const agent = await call<{ api_key: string }>(`${s.base}/api/sdk/agents/register`, 'POST', {
      name: 'worldcup-copytrader-skill',
    });
    const asAgent = <T>(path: string) => call<T>(`${s.base}${path}`, 'GET', undefined, agent.api_key);
    const hex = randomBytes(3).toString('hex');
    const event = (title: string, yes: number, tags: string[]) => emulatedEvent(admin, title, yes, tags);
    // Tagged as Gamma tags a World Cup match: labels Sports, Soccer, World Cup; slugs sports, soccer, world-cup.
    const wcEvent = await event(`World Cup ${hex}: will Spain beat Italy?`, 0.4, [
      'sports',
      'soccer',
      'worldCup',
    ]);
    const nbaEvent = await event(`NBA ${hex}: will the Celtics beat the Knicks?`, 0.5, ['sports', 'nba']);
    const [wc, nba] = [wcEvent.markets[0]!, nbaEvent.markets[0]!];
    const imported: string[] = [];
    for (const e of [wcEvent, nbaEvent])
      imported.push(
        (
          await call<{ market_id: string }>(
            `${s.base}/api/sdk/markets/import`,
            'POST',
            { polymarket_url: `https://polymarket.com/event/${e.event_slug}` },
            agent.api_key,
          )
        ).market_id,
      );
    const [wcId, nbaId] = imported as [string, string];

    // The leaders' record: three buys each at 0.40, then (after the backtest's copy delay) the
    // market trades at 0.60, so each copy earned. The fills go on the emulated chain; the fill feed
    // stores them in venue_fills.
    const leaders = Array.from({ length: LEADERS }, () => Wallet.createRandom().address.toLowerCase());
    const fill = (wallet: string, price?: number) =>
      call(`${admin}/markets/${wc.condition_id}/fills`, 'POST', { wallet, side: 'BUY', shares: 10, price });
    for (let round = 0; round < 3; round++) for (const w of leaders) await fill(w, 0.4);
    await new Promise((r) => setTimeout(r, AFTER_COPY_DELAY_MS));
    await call(`${admin}/markets/${wc.condition_id}/price`, 'POST', { yes: 0.6 });
    await fill(Wallet.createRandom().address);
    // What they hold now: the 30 shares they bought, and a position on an NBA market too.
    for (const w of leaders)
      await call(`${admin}/wallets/${w}/fund`, 'POST', {
        tokens: { [wc.token_ids[0]!]: 30, [nba.token_ids[0]!]: 50 },
      });

    // The daily curation, run now by the operator until the fill feed has brought every fill in.
    const curated = await until(
      async () => {
        const asked = new Date();
        await call(
          `${s.base}/api/admin/schedules/refresh-copy-leaders/run`,
          'POST',
          undefined,
          operatorToken,
        );
        await until(
          () => asAgent<CopyLeaders>('/api/sdk/wc/copy-leaders').catch(() => null),
          (r) => !!r && Date.parse(r.refreshed_at) >= asked.getTime(),
        );
        return asAgent<CopyLeaders>('/api/sdk/wc/copy-leaders');
      },
      (r) => leaders.every((w) => r.leaders.some((l) => l.wallet === w)),
      120_000,
    );
    assert.deepEqual(
      leaders.filter((w) => !curated.leaders.some((l) => l.wallet === w)),
      [],
      `leaders missing from ${JSON.stringify(curated)}\n--- service:\n${s.service.output().slice(-3000)}`,
    );
    for (const l of curated.leaders.filter((x) => leaders.includes(x.wallet))) {
      assert.equal(l.trade_count, 3, JSON.stringify(l));
      assert.ok(l.backtest_copy_pnl_usdc > 0, JSON.stringify(l));
    }

    const listed = await runSkill(agent.api_key, ['--leaders']);
    assert.equal(listed.code, 0, listed.output);
    for (const w of leaders)
      assert.match(listed.output, new RegExp(`${w.slice(0, 10)}…${w.slice(-6)}  copy_pnl=\\$\\d+\\.\\d\\d`));

    const dry = await runSkill(agent.api_key, []);
    const dryTail = `skill output (dry run):\n${dry.output}\n--- service:\n${s.service.output().slice(-3000)}`;
    assert.equal(dry.code, 0, dryTail);
    assert.match(dry.output, new RegExp(`Leaders: ${LEADERS}\\n`), dryTail);
    assert.match(dry.output, /\[DRY RUN\] Showing trade plan only/, dryTail);
    assert.match(dry.output, new RegExp(`Leaders analyzed:  ${LEADERS}\\n`), dryTail);
    assert.match(dry.output, /Trade plan \(1 trade\(s\)\):/, dryTail);
    assert.match(dry.output, /⏸️ {2}BUY [\d.]+ YES @ \$0\.\d{3} \(\$\d+\.\d\d\) {2}World Cup/, dryTail);
    assert.doesNotMatch(dry.output, /NBA/, dryTail);
    assert.match(dry.output, /Dry-run complete — 1 trades planned/, dryTail);
    const none = await asAgent<{ positions: unknown[] }>('/api/sdk/positions?venue=sim');
    assert.deepEqual(none.positions, [], dryTail);

    const live = await runSkill(agent.api_key, ['--live']);
    const liveTail = `skill output (--live):\n${live.output}\n--- service:\n${s.service.output().slice(-3000)}`;
    assert.equal(live.code, 0, liveTail);
    assert.match(live.output, /⚡ Executing 1 trade\(s\)…/, liveTail);
    assert.match(live.output, /✅ BUY [\d.]+ YES @ \$0\.\d{3} {2}World Cup/, liveTail);
    assert.match(live.output, /✅ WC Copytrader run complete — 1\/1 trades executed \(0 failed\)/, liveTail);
    assert.doesNotMatch(live.output, /non-WC market/, liveTail);

    // Server-side: the trade, with the skill's source and slug, on the World Cup market only.
    const trades = await asAgent<{
      trades: {
        market_id: string;
        source: string;
        skill_slug: string;
        venue: string;
        side: string;
        action: string;
      }[];
    }>('/api/sdk/trades?limit=10');
    assert.deepEqual(
      trades.trades.map((t) => [t.market_id, t.source, t.skill_slug, t.venue, t.action, t.side]),
      [[wcId, 'sdk:wc-copytrader', 'polymarket-worldcup-copytrader', 'sim', 'buy', 'yes']],
      liveTail,
    );
    const held = await asAgent<{ positions: { market_id: string; shares_yes: number }[] }>(
      '/api/sdk/positions?venue=sim',
    );
    assert.deepEqual(
      held.positions.map((p) => p.market_id),
      [wcId],
      liveTail,
    );
    assert.ok(held.positions[0]!.shares_yes > 0, JSON.stringify(held.positions));
    assert.ok(!held.positions.some((p) => p.market_id === nbaId));

    if (process.env.WORLDCUP_COPYTRADER_TRANSCRIPT)
      console.log(
        `${listed.output}\n======== dry run ========\n${dry.output}\n======== --live ========\n${live.output}`,
      );
  });
});
