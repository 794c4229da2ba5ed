import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { jsonCall, runSkillCopy } from '../support/client-venv-service.js';
import { importedEmulatedEvent, useEmulatedSkillService } from '../support/emulated-skill-service.js';
import { claimedAgentOnService } from '../support/service-claims.js';
import { skillsClientPython } from '../support/simmer-backtest.js';
import { until } from '../support/until.js';

const root = resolve(import.meta.dirname, '../..');
/** The published skill, vendored byte for byte: it runs from a copy. */
const SKILLS = join(root, 'test', 'fixtures', 'clients', 'simmer-skills');
const SKILL_DIR = join(SKILLS, 'polymarket-soccer-shock-ladder');
/** The copytrading skill reads the same feed in its reactor mode. */
const COPYTRADING_DIR = join(SKILLS, 'polymarket-copytrading');
/** The price refresh's cadence here (its floor): the detector sees the venue's price this often. */
const REFRESH_SECONDS = 5;
/**
 * The depth percentiles (cents below the pre-shock price) every shock gets here: deeper than the
 * shock itself (0.80 → 0.70), so a live ladder rests below the emulated book, whose price also
 * wanders a few ticks every 10 s, instead of matching at once; fractional, as percentiles of recorded
 * drops are, so the skill's rung prices (4 decimals) fall between the venue's 0.01 ticks.
 */
const DEPTHS_CENTS = { p50: 25.4, p75: 30.7, p90: 35.2, p95: 40.6 };
/** The price the test sets before the drop: the shock's pre_price, give or take the emulator's wandering. */
const PRE_SHOCK_PRICE = 0.8;
/** The emulated market's tick: a limit price between ticks is rounded to the nearest, as the official client rounds it. */
const TICK_DECIMALS = 2;
/** The skill's rungs and its weights of the stake (shock_ladder.py's DEFAULT_LADDER_WEIGHTS). */
const RUNG_WEIGHTS = { p50: 0.1, p75: 0.2, p90: 0.3, p95: 0.4 };
/** The live run's stake (--stake): each rung buys at least the venue's minimum of 5 shares. */
const LIVE_STAKE_USD = 40;
/** The live run's --ttl: the rungs rest this long before the skill cancels the unfilled ones. */
const LIVE_TTL_SECONDS = 30;

interface ShockSignal {
  type: string;
  shock_id: string;
  side: string;
  market_id: string;
  pre_price: number;
  percentile_depths: Record<keyof typeof RUNG_WEIGHTS, number>;
}

interface OpenOrder {
  order_id: string;
  trade_id: string;
  venue_order_id: string;
  market_id: string;
  side: string;
  trade_type: string;
  price: number;
  status: string;
  source: string | null;
  skill_slug: string | null;
}

// Issue 38's acceptance: "shock-ladder with a shock made on the emulator", the skill unmodified
// (configuration only: SIMMER_API_URL, SIMMER_API_KEY and its own flags). The agent arms itself as
// SKILL.md's step 4 says; the shock is an admin price move on a sports-tagged market of the emulated
// venue. Dry by default; with --live it rests its ladder of GTC bids on the emulated CLOB from the
// managed wallet of a claimed agent.
describe('Shock ladder: the published skill, unmodified, against VENUES=emulated npm start #integration', function () {
  this.timeout(600_000);
  const jwtSecret = randomBytes(32).toString('base64url');
  const { s, polymarketAdmin: emulatorAdmin } = useEmulatedSkillService('shock-ladder-skill', {
    JWT_SECRET: jwtSecret,
    EXTERNAL_PRICE_SECONDS: String(REFRESH_SECONDS),
    SHOCK_LADDER_DEFAULT_DEPTHS_CENTS: Object.values(DEPTHS_CENTS).join(','),
    // Past drops on the tapes never replace those depths here (the wandering prices may leave some).
    SHOCK_LADDER_MIN_HISTORY: '1000',
  });

  const call = jsonCall;

  const runSkill = (apiKey: string, args: string[], dir = SKILL_DIR, script = 'shock_ladder_trader.py') =>
    runSkillCopy(s, dir, script, apiKey, args);

  const pending = (apiKey: string) =>
    call<{ reactor_signals: ShockSignal[] }>(`${s.base}/api/sdk/reactor/pending`, 'GET', undefined, apiKey);
  /** The agent's pending shock on the YES side of a market, if any. */
  const yesShock = async (apiKey: string, marketId: string) =>
    (await pending(apiKey)).reactor_signals.find(
      (x) => x.type === 'shock_ladder' && x.side === 'yes' && x.market_id === marketId,
    );

  /** SKILL.md, Setup step 4: the agent arms itself for shock signals. */
  const arm = async (apiKey: string) => {
    const armed = await call<{ shock_ladder_enabled: boolean }>(
      `${s.base}/api/sdk/shock-ladder/config`,
      'PATCH',
      { enabled: true },
      apiKey,
    );
    assert.equal(armed.shock_ladder_enabled, true);
  };

  /**
   * A sports market of the emulated venue, imported by the agent, whose YES price drops from 0.80 to
   * 0.70 until the service's refresh sees the drop: the agent's shock signal on it, pending.
   */
  const shockedMarket = async (apiKey: string) => {
    const admin = await emulatorAdmin();
    const { venue, marketId } = await importedEmulatedEvent(
      admin,
      s.base,
      apiKey,
      `World Cup match ${randomBytes(3).toString('hex')}: will the favourite win?`,
      PRE_SHOCK_PRICE,
      ['sports', 'soccer'],
    );
    const price = (yes: number) => call(`${admin}/markets/${venue.condition_id}/price`, 'POST', { yes });
    const shockOnYes = () => yesShock(apiKey, marketId);
    // The refresh must have seen 0.80 before the drop: until a drop shows up, the price goes back up
    // for a few refreshes and falls again.
    for (let attempt = 0; ; attempt++) {
      const signal = await shockOnYes();
      if (signal) return { marketId, signal };
      assert.ok(attempt < 5, 'no shock after 5 drops');
      await price(PRE_SHOCK_PRICE);
      await new Promise((r) => setTimeout(r, 3 * REFRESH_SECONDS * 1000));
      await price(0.7);
      await until(shockOnYes, (seen) => seen !== undefined, 4 * REFRESH_SECONDS * 1000);
    }
  };

  it('when an armed agent’s sports market drops on the venue, then the skill reads the shock, prints its ladder and deletes it', async () => {
    if (!s.service) return; // skipped: no client venv
    const agent = await call<{ api_key: string }>(`${s.base}/api/sdk/agents/register`, 'POST', {
      name: 'shock-ladder-skill',
    });
    const nothing = await runSkill(agent.api_key, ['--once']);
    assert.equal(nothing.code, 0, nothing.output);
    assert.match(nothing.output, /DRY-RUN: 0 pending shock signals/, nothing.output);

    await arm(agent.api_key);
    const { marketId } = await shockedMarket(agent.api_key);
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
    assert.ok(await yesShock(agent.api_key, marketId), copytrading.output);

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
    assert.ok(!(await pending(agent.api_key)).reactor_signals.some((x) => x.market_id === marketId), tail);
  });

  it('when a claimed agent whose managed wallet holds pUSD runs it --once --live on a shock, then its four GTC bids rest at the ladder’s prices on the emulated CLOB until its TTL cancels them', async function () {
    if (!s.service) return; // skipped: no client venv
    // The skill builds SimmerClient(api_key) without `live=`, as the client it was written for
    // (0.24.x) allows and 0.26.0 refuses for a real venue: its live run uses simmer-sdk 0.24.x.
    const python = skillsClientPython(this);
    const admin = await emulatorAdmin();
    const agent = await claimedAgentOnService(s.base, jwtSecret, 'shock-ladder-live');
    // Only funded: the service sets the managed wallet's approvals itself before its first order.
    await call(`${admin}/wallets/${agent.walletAddress}/fund`, 'POST', { pusd: 500 });
    await arm(agent.apiKey);
    const { marketId, signal } = await shockedMarket(agent.apiKey);

    assert.ok(Math.abs(signal.pre_price - PRE_SHOCK_PRICE) <= 0.03, JSON.stringify(signal));
    assert.deepEqual(signal.percentile_depths, DEPTHS_CENTS, JSON.stringify(signal));
    // The ladder as shock_ladder.py computes it: pre_price − depth (4 decimals), stake × weight.
    const ladder = Object.entries(RUNG_WEIGHTS).map(([label, weight]) => {
      const price =
        Math.round((signal.pre_price - DEPTHS_CENTS[label as keyof typeof DEPTHS_CENTS] / 100) * 1e4) / 1e4;
      return { label, price, onTick: Number(price.toFixed(TICK_DECIMALS)), stake: LIVE_STAKE_USD * weight };
    });
    const openOrders = () =>
      call<{ orders: OpenOrder[]; count: number }>(
        `${s.base}/api/sdk/orders/open`,
        'GET',
        undefined,
        agent.apiKey,
      );
    /** The venue's own record of an order (the emulator's admin door). */
    const onVenue = (venueOrderId: string) =>
      call<{
        id: string;
        status: string;
        side: string;
        price: string;
        order_type: string;
        maker_address: string;
      }>(`${admin}/clob/orders/${venueOrderId}`, 'GET');

    let exited = false;
    let resting: OpenOrder[] = [];
    const running = runSkillCopy({ ...s, python }, SKILL_DIR, 'shock_ladder_trader.py', agent.apiKey, [
      '--once',
      '--live',
      '--stake',
      String(LIVE_STAKE_USD),
      '--ttl',
      String(LIVE_TTL_SECONDS),
    ]).finally(() => (exited = true));
    const tailOf = (run: { output: string }) =>
      `skill output:\n${run.output}\n--- service:\n${s.service.output().slice(-3000)}`;

    // While the skill waits out its TTL, the four rungs rest: on the service and on the venue's book.
    // (Its first order waits for the managed wallet's approvals; the TTL starts once all are placed.)
    try {
      const open = await until(
        openOrders,
        (o) => o.count >= ladder.length || exited,
        (LIVE_TTL_SECONDS + 90) * 1000,
      );
      resting = open.orders;
      assert.equal(open.count, ladder.length, JSON.stringify(open));
      assert.deepEqual(
        resting.map((o) => [o.market_id, o.side, o.trade_type, o.price]).sort(),
        ladder.map((r) => [marketId, 'yes', 'buy', r.price]).sort(),
        JSON.stringify(open),
      );
      for (const o of resting) {
        assert.equal(o.source, 'sdk:soccer-shock-ladder:reactor', JSON.stringify(o));
        assert.equal(o.skill_slug, 'polymarket-soccer-shock-ladder', JSON.stringify(o));
      }
      const book = await Promise.all(resting.map((o) => onVenue(o.venue_order_id)));
      assert.deepEqual(
        book
          .map((o) => [o.status, o.side, Number(o.price), o.order_type, o.maker_address.toLowerCase()])
          .sort(),
        ladder.map((r) => ['LIVE', 'BUY', r.onTick, 'GTC', agent.walletAddress.toLowerCase()]).sort(),
        JSON.stringify(book),
      );
    } catch (err) {
      // The skill's own account of what it did, once it is done.
      (err as Error).message += `\n${tailOf(await running)}`;
      throw err;
    }

    const run = await running;
    const tail = tailOf(run);
    assert.equal(run.code, 0, tail);
    assert.match(run.output, /\[shock-ladder\] LIVE: 1 pending shock signal\(s\)/, tail);
    assert.ok(run.output.includes(`▶ LIVE shock ${signal.shock_id} bucket=soccer|moderate|`), tail);
    for (const r of ladder) {
      // The order_id the skill prints (its first 12 characters) is the one the open orders list.
      const id = resting.find((o) => o.price === r.price)!.order_id.slice(0, 12);
      const shares = (Math.round((r.stake / r.price) * 100) / 100).toFixed(1);
      const placed = `✅ placed BUY YES ${r.label} ${r.stake.toFixed(2)} USD @ ${r.price.toFixed(3)} (~${shares} sh) order_id=${id}…`;
      assert.ok(run.output.includes(placed), `${placed}\n${tail}`);
      assert.ok(run.output.includes(`⏱ cancelled unfilled rung ${r.label} (${id}…)`), tail);
    }
    // Each rung was found among the open orders by the id trade() answered: none was taken for a fill.
    assert.doesNotMatch(run.output, /exit placed|warn: exit|❌/, tail);
    assert.match(run.output, /→ handled:4rungs/, tail);
    assert.doesNotMatch(run.output, /warn: (delete signal|cancel|open-orders)/, tail);
    // At its TTL the skill cancelled them: nothing rests any more, and the shock is handled.
    assert.deepEqual((await openOrders()).orders, [], tail);
    for (const o of resting) assert.equal((await onVenue(o.venue_order_id)).status, 'CANCELED', tail);
    assert.equal(await yesShock(agent.apiKey, marketId), undefined, tail);

    if (process.env.SHOCK_LADDER_SKILL_TRANSCRIPT) console.log(run.output);
  });
});
