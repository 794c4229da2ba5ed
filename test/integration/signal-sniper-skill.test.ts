import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { jsonCall, runSkillCopy } from '../support/client-venv-service.js';
import {
  agentTrades,
  importedEmulatedEvent,
  useEmulatedSkillService,
} from '../support/emulated-skill-service.js';
import { startRssFeedStub, type RssFeedStub } from '../support/rss-feed-stub.js';

const root = resolve(import.meta.dirname, '../..');
/** The published skill, vendored byte for byte: it runs from a copy (it writes state/processed.json beside itself). */
const SKILL_DIR = join(root, 'test', 'fixtures', 'clients', 'simmer-skills', 'polymarket-signal-sniper');

// Issue 38's acceptance: "signal-sniper trading instead of skipping", unmodified against
// VENUES=emulated npm start (configuration only: SIMMER_API_URL, SIMMER_API_KEY, TRADING_VENUE and
// the SIMMER_SNIPER_* settings its SKILL.md names). Its news feed is a loopback RSS stub. Before the
// fix, GET /api/sdk/context answered edge.recommendation SKIP without my_probability, which the skill
// reads as "market resolved or invalid" and never trades.
describe('Signal sniper: the published skill, unmodified, against VENUES=emulated npm start #integration', function () {
  this.timeout(600_000);
  const { s, polymarketAdmin } = useEmulatedSkillService('signal-sniper-skill');
  let feed: RssFeedStub | undefined;
  after(async () => feed?.close());

  it('when its feed carries a bullish headline on a configured market, then the skill buys YES on sim', async () => {
    if (!s.service) return; // skipped: no client venv
    const admin = await polymarketAdmin();
    const agent = await jsonCall<{ api_key: string }>(`${s.base}/api/sdk/agents/register`, 'POST', {
      name: 'signal-sniper-skill',
    });
    const { marketId } = await importedEmulatedEvent(
      admin,
      s.base,
      agent.api_key,
      'Will the Senate pass the infrastructure bill?',
      0.7,
    );
    // Three of the skill's bullish words (likely, pass, approve) and none of its bearish ones.
    feed = await startRssFeedStub([
      {
        title: 'Senate likely to pass and approve the infrastructure bill',
        link: 'https://news.example/senate-infrastructure-bill',
        description: 'Leaders say the votes are there.',
      },
    ]);

    const run = await runSkillCopy(s, SKILL_DIR, 'signal_sniper.py', agent.api_key, ['--live'], {
      TRADING_VENUE: 'sim',
      SIMMER_SNIPER_FEEDS: feed.url,
      SIMMER_SNIPER_KEYWORDS: 'senate',
      SIMMER_SNIPER_MARKETS: marketId,
    });
    const tail = `skill output:\n${run.output}\n--- service:\n${s.service.output().slice(-3000)}`;
    assert.equal(run.code, 0, tail);
    assert.ok(feed.fetches() >= 1, tail);
    assert.match(run.output, /Found 1 articles/, tail);
    assert.match(run.output, /Matched 1\/1 articles by keywords/, tail);
    assert.doesNotMatch(run.output, /SKIP \(market resolved or invalid\)/, tail);
    assert.doesNotMatch(run.output, /Skipping: safeguards failed/, tail);
    assert.match(run.output, /Market: Will the Senate pass the infrastructure bill\?/, tail);
    assert.match(
      run.output,
      new RegExp(`🧠 SIGNAL: YES on ${marketId.slice(0, 20)} \\(confidence: 100%\\)`),
      tail,
    );
    assert.match(run.output, /💰 Executing: BUY YES for \$25\.00/, tail);
    const bought = /✅ Bought (\d+\.\d) shares/.exec(run.output);
    assert.ok(bought, tail);
    assert.match(run.output, /Skipped \(safeguards\): 0/, tail);

    const trades = await agentTrades(s.base, agent.api_key);
    assert.equal(trades.length, 1, JSON.stringify(trades));
    const trade = trades[0]!;
    assert.equal(trade.market_id, marketId);
    assert.equal(trade.venue, 'sim');
    assert.equal(trade.action, 'buy');
    assert.equal(trade.side, 'yes');
    assert.equal(trade.amount, 25);
    assert.equal(trade.source, 'sdk:signalsniper');
    assert.equal(trade.skill_slug, 'polymarket-signal-sniper');
    assert.equal(trade.shares.toFixed(1), bought[1]);
  });
});
