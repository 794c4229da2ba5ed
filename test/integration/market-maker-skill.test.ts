import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { jsonCall, runSkillCopy } from '../support/client-venv-service.js';
import { importedEmulatedEvent, useEmulatedSkillService } from '../support/emulated-skill-service.js';
import { skillsClientPython } from '../support/simmer-backtest.js';
import { claimedAgentOnService } from '../support/service-claims.js';

const root = resolve(import.meta.dirname, '../..');
/** The published skill, vendored byte for byte: it runs from a copy. */
const SKILL_DIR = join(root, 'test', 'fixtures', 'clients', 'simmer-skills', 'polymarket-market-maker');

interface OpenOrder {
  order_id: string;
  trade_id: string;
  venue_order_id: string;
  side: string;
  skill_slug: string | null;
}

// Issue 38, item 6: the market-maker skill unmodified against VENUES=emulated npm start. It builds
// SimmerClient(api_key, venue="polymarket") without `live=`, as the client it was written for
// (0.24.x) allows and 0.26.0 refuses: it runs with simmer-sdk 0.24.x (.cache/simmer-sdk-0.24-venv),
// configured by the env vars its SKILL.md names only. It keeps the trade_id that trade() answered in
// its state file and looks for it among GET /api/sdk/orders/open's order_id.
describe('Market maker: the published skill, unmodified, against VENUES=emulated npm start #integration', function () {
  this.timeout(600_000);
  const jwtSecret = randomBytes(32).toString('base64url');
  const { s, polymarketAdmin } = useEmulatedSkillService('market-maker-skill', {
    JWT_SECRET: jwtSecret,
    // The claim's settings answer read the new wallet's cash (0) before the test funds it: the
    // skill's balance preflight is to read the funded one.
    WALLET_CASH_CACHE_SECONDS: '0',
  });

  it('when a claimed agent with a funded managed wallet runs it --live twice and then --cancel-all, then the first run posts its bid, the second finds it and posts the ask, both show live, and --cancel-all cancels both on the venue', async function () {
    if (!s.service) return; // skipped: no client venv
    const python = skillsClientPython(this);
    const admin = await polymarketAdmin();
    const agent = await claimedAgentOnService(s.base, jwtSecret, 'market-maker-skill');
    await jsonCall(`${admin}/wallets/${agent.walletAddress}/fund`, 'POST', { pusd: 500 });
    const { marketId } = await importedEmulatedEvent(
      admin,
      s.base,
      agent.apiKey,
      `Market made ${randomBytes(3).toString('hex')}?`,
      0.5,
    );

    const stateFile = join(s.scratch, 'market_maker_state.json');
    // SKILL.md's parameters. A 20-cent spread keeps both quotes (0.40 YES, 0.40 NO) off the emulated
    // book's crowd, and the drift threshold above the emulator's wandering price keeps a second run
    // from cancelling and reposting them: it is to find them.
    const env = {
      MM_MARKETS: marketId,
      MM_SPREAD_PCT: '0.20',
      MM_DRIFT_THRESHOLD: '0.5',
      MM_STATE_FILE: stateFile,
    };
    const runSkill = (args: string[]) =>
      runSkillCopy({ ...s, python }, SKILL_DIR, 'market_maker.py', agent.apiKey, args, env);
    const openOrders = () =>
      jsonCall<{ orders: OpenOrder[]; count: number }>(
        `${s.base}/api/sdk/orders/open`,
        'GET',
        undefined,
        agent.apiKey,
      );
    const liveOnVenue = () =>
      jsonCall<{ id: string; side: string; price: string }[]>(
        `${admin}/clob/orders?owner=${agent.walletAddress}&status=LIVE`,
        'GET',
      );
    const transcript: string[] = [];
    const run = async (args: string[]) => {
      const r = await runSkill(args);
      transcript.push(`$ market_maker.py ${args.join(' ')}\n${r.output}`);
      const tail = `skill output:\n${r.output}\n--- service:\n${s.service.output().slice(-3000)}`;
      assert.equal(r.code, 0, tail);
      return { output: r.output, tail };
    };

    const first = await run(['--live']);
    assert.match(first.output, /Mode: LIVE/, first.tail);
    assert.match(first.output, /→ POST BID: BUY YES @ 0\.400 for \$10\.00 USDC/, first.tail);
    assert.match(first.output, /✅ Order [\w-]{8}\.\.\. \(fee_equiv=\$0\.0480\)/, first.tail);
    // The client's own held-markets cache counts the market as held by the skill's source once the
    // bid is placed, so it refuses the ask in the same run (client-side, both 0.24.7 and 0.26.0);
    // the next run, with a fresh client, places it.
    assert.match(
      first.output,
      /⚠️ ASK failed: Already hold position on this market \(source: sdk:market-maker\)/,
      first.tail,
    );
    assert.match(
      first.output,
      /✅ Run complete: 1 bid\(s\) \| 0 ask\(s\) posted \| 0 cancelled \| 0 skipped/,
      first.tail,
    );
    // The bid rests on the venue's book, and the service lists it as open.
    assert.equal((await liveOnVenue()).length, 1, first.tail);
    assert.equal((await openOrders()).count, 1, first.tail);

    // The second run finds its bid among the open orders (no new bid) and places the ask.
    const second = await run(['--live']);
    assert.doesNotMatch(second.output, /→ POST BID/, second.tail);
    assert.match(
      second.output,
      /→ POST ASK: BUY NO @ 0\.400 for \$10\.00 USDC \(synthetic YES ask @ 0\.600\)\n\s+✅ Order [\w-]{8}\.\.\./,
      second.tail,
    );
    assert.match(
      second.output,
      /✅ Run complete: 0 bid\(s\) \| 1 ask\(s\) posted \| 0 cancelled \| 0 skipped/,
      second.tail,
    );
    // What the skill kept (the trade ids trade() answered) is what the service lists as open, and
    // both rest on the venue's book.
    const kept = (
      JSON.parse(readFileSync(stateFile, 'utf8')) as {
        markets: Record<string, { bid_order_id: string | null; ask_order_id: string | null }>;
      }
    ).markets[marketId]!;
    const open = await openOrders();
    assert.deepEqual(
      open.orders.map((o) => o.order_id).sort(),
      [kept.bid_order_id, kept.ask_order_id].sort(),
      second.tail,
    );
    for (const o of open.orders) assert.equal(o.skill_slug, 'polymarket-market-maker', JSON.stringify(o));
    assert.deepEqual(
      (await liveOnVenue()).map((o) => o.id).sort(),
      open.orders.map((o) => o.venue_order_id).sort(),
      second.tail,
    );
    const status = await run(['--status']);
    assert.match(status.output, /BID YES @ 0\.400 — order [\w-]{8}\.\.\. \[live\]/, status.tail);
    assert.match(status.output, /ASK \(NO buy @ 0\.400\) — order [\w-]{8}\.\.\. \[live\]/, status.tail);

    const cancel = await run(['--cancel-all', '--live']);
    assert.match(cancel.output, /Cancelled: 2 order\(s\)/, cancel.tail);
    assert.deepEqual((await openOrders()).orders, [], cancel.tail);
    assert.deepEqual(await liveOnVenue(), [], cancel.tail);

    if (process.env.MARKET_MAKER_SKILL_TRANSCRIPT) console.log(transcript.join('\n'));
  });
});
