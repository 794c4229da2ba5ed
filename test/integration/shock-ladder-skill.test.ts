import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import {
  jsonCall,
  polymarketEmulatorAdmin,
  runSkillCopy,
  useClientVenvService,
} from '../support/client-venv-service.js';
import { until } from '../support/until.js';

const root = resolve(import.meta.dirname, '../..');
/** The published skill, vendored byte for byte: it runs from a copy. */
const SKILLS = join(root, 'test', 'fixtures', 'clients', 'simmer-skills');
const SKILL_DIR = join(SKILLS, 'polymarket-soccer-shock-ladder');
/** The copytrading skill reads the same feed in its reactor mode. */
const COPYTRADING_DIR = join(SKILLS, 'polymarket-copytrading');
/** The price refresh's cadence here (its floor): the detector sees the venue's price this often. */
const REFRESH_SECONDS = 5;

// Issue 38's acceptance: "shock-ladder with a shock made on the emulator", the skill unmodified
// (configuration only: SIMMER_API_URL, SIMMER_API_KEY). The agent arms itself as SKILL.md's step 4
// says; the shock is an admin price move on a sports-tagged market of the emulated venue.
describe('Shock ladder: the published skill, unmodified, against VENUES=emulated npm start #integration', function () {
  this.timeout(600_000);
  const operatorToken = randomBytes(24).toString('base64url');
  const s = useClientVenvService('shock-ladder-skill', (url) => ({
    VENUES: 'emulated',
    PUBLIC_BASE_URL: url,
    OPERATOR_TOKEN: operatorToken,
    EXTERNAL_PRICE_SECONDS: String(REFRESH_SECONDS),
  }));

  const call = jsonCall;

  const emulatorAdmin = () => polymarketEmulatorAdmin(s.base, operatorToken);

  const runSkill = (apiKey: string, args: string[], dir = SKILL_DIR, script = 'shock_ladder_trader.py') =>
    runSkillCopy(s, dir, script, apiKey, args);

  it('when an armed agent’s sports market drops on the venue, then the skill reads the shock, prints its ladder and deletes it', async () => {
    if (!s.service) return; // skipped: no client venv
    const admin = await emulatorAdmin();
    const agent = await call<{ api_key: string }>(`${s.base}/api/sdk/agents/register`, 'POST', {
      name: 'shock-ladder-skill',
    });
    const pending = () =>
      call<{ reactor_signals: { type: string; side: string; market_id: string }[] }>(
        `${s.base}/api/sdk/reactor/pending`,
        'GET',
        undefined,
        agent.api_key,
      );
    const nothing = await runSkill(agent.api_key, ['--once']);
    assert.equal(nothing.code, 0, nothing.output);
    assert.match(nothing.output, /DRY-RUN: 0 pending shock signals/, nothing.output);

    // SKILL.md, Setup step 4.
    const armed = await call<{ shock_ladder_enabled: boolean }>(
      `${s.base}/api/sdk/shock-ladder/config`,
      'PATCH',
      { enabled: true },
      agent.api_key,
    );
    assert.equal(armed.shock_ladder_enabled, true);

    const event = await call<{ event_slug: string; markets: { condition_id: string }[] }>(
      `${admin}/events`,
      'POST',
      {
        title: `World Cup match ${randomBytes(3).toString('hex')}: will the favourite win?`,
        prices: [0.8],
        tags: ['sports', 'soccer'],
      },
    );
    const imported = await call<{ market_id: string }>(
      `${s.base}/api/sdk/markets/import`,
      'POST',
      { polymarket_url: `https://polymarket.com/event/${event.event_slug}` },
      agent.api_key,
    );
    const price = (yes: number) =>
      call(`${admin}/markets/${event.markets[0]!.condition_id}/price`, 'POST', { yes });
    const shockOnYes = async () =>
      (await pending()).reactor_signals.some(
        (x) => x.type === 'shock_ladder' && x.side === 'yes' && x.market_id === imported.market_id,
      );
    // The refresh must have seen 0.80 before the drop: until a drop shows up, the price goes back up
    // for a few refreshes and falls again.
    for (let attempt = 0; !(await shockOnYes()); attempt++) {
      assert.ok(attempt < 5, 'no shock after 5 drops');
      await price(0.8);
      await new Promise((r) => setTimeout(r, 3 * REFRESH_SECONDS * 1000));
      await price(0.7);
      await until(shockOnYes, (seen) => seen, 4 * REFRESH_SECONDS * 1000);
    }

    // The copytrading skill on the same feed leaves the shock alone (it is not its type).
    const copytrading = await runSkill(
      agent.api_key,
      ['--reactor', '--once', '--venue', 'sim'],
      COPYTRADING_DIR,
      'copytrading_trader.py',
    );
    assert.equal(copytrading.code, 0, copytrading.output);
    assert.match(
      copytrading.output,
      /\[reactor\] ignoring \d+ non-copytrade signal\(s\) on the shared feed/,
      copytrading.output,
    );
    assert.match(copytrading.output, /\[reactor\] 0 pending signals/, copytrading.output);
    assert.ok(await shockOnYes(), copytrading.output);

    const run = await runSkill(agent.api_key, ['--once']);
    const tail = `skill output:\n${run.output}\n--- service:\n${s.service.output().slice(-3000)}`;
    assert.equal(run.code, 0, tail);
    assert.match(run.output, /DRY-RUN: \d+ pending shock signal\(s\)/, tail);
    assert.match(
      run.output,
      /▶ DRY-RUN shock \S+:yes:\d+ bucket=soccer\|moderate\|\w+\|unknown\|unknown pre=0\.8 side=yes depths=\{'p50': [\d.]+, 'p75': [\d.]+, 'p90': [\d.]+, 'p95': [\d.]+\} src=(tapes|tapes_all_bands|default)/,
      tail,
    );
    for (const rung of ['p50', 'p75', 'p90', 'p95'])
      assert.match(
        run.output,
        new RegExp(`DRY-RUN would place BUY YES ${rung} [\\d.]+ USD @ 0\\.\\d{3}`),
        tail,
      );
    assert.match(run.output, /→ handled:4rungs/, tail);
    assert.doesNotMatch(run.output, /warn: delete signal/, tail);
    // Each signal the skill handled is deleted: none of this market's shocks is pending any more.
    assert.ok(!(await pending()).reactor_signals.some((x) => x.market_id === imported.market_id), tail);
  });
});
