import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { encodeBase58 } from '../emulators/kalshi/base58.js';
import { highTemperatureEvent } from '../emulators/kalshi/temperature-event.js';
import { startNoaaStandIn, type NoaaStandIn } from '../emulators/noaa/index.js';
import {
  jsonCall,
  kalshiEmulatorAdmin,
  runSkillModule,
  useClientVenvService,
} from '../support/client-venv-service.js';
import { claimedAgentOnService } from '../support/service-claims.js';
import { until } from '../support/until.js';

const root = resolve(import.meta.dirname, '../..');
/** The published skill, vendored byte for byte: it runs from a copy (it may write config.json beside itself). */
const SKILL_DIR = join(root, 'test', 'fixtures', 'clients', 'simmer-skills', 'kalshi-weather-trader');
/**
 * `python weather_trader.py --live`, with NOAA at the stand-in: the skill reads api.weather.gov from
 * its module constant NOAA_API_BASE and from no env var, so the runner imports it, points the
 * constant at the stand-in (argv[1]) and calls what its `__main__` calls for `--live` (dry_run=False,
 * the other flags at their defaults). The skill's file is not touched.
 */
const LIVE_RUN = [
  'import sys, weather_trader',
  'weather_trader.NOAA_API_BASE = sys.argv[1]',
  'weather_trader.run_weather_strategy(dry_run=False)',
].join('\n');
/** The point the skill asks NOAA about for NYC (its LOCATIONS, as Python formats the floats). */
const NYC_POINT = '40.7769,-73.874';

// Issue 38, item 6: the Kalshi weather trader, unmodified, trades. It finds Kalshi's temperature
// markets through our importable list (venue=kalshi, q="temperature nyc"), imports them, reads them
// back (import_source=kalshi, q=temperature), groups the buckets by event, asks NOAA for the day's
// high, and buys the bucket the forecast falls in when it is cheap, as a self-custody Kalshi trade
// (quote → sign with SOLANA_PRIVATE_KEY → submit through DFlow on the emulated chain).
describe('Kalshi weather trader: the published skill, unmodified, against VENUES=emulated npm start #integration', function () {
  this.timeout(600_000);
  const operatorToken = randomBytes(24).toString('base64url');
  const jwtSecret = randomBytes(32).toString('hex');
  const s = useClientVenvService('kalshi-weather-skill', (url) => ({
    VENUES: 'emulated',
    PUBLIC_BASE_URL: url,
    OPERATOR_TOKEN: operatorToken,
    JWT_SECRET: jwtSecret,
  }));
  let noaa: NoaaStandIn | undefined;
  after(() => noaa?.close());

  it('when NOAA forecasts 48°F for tomorrow in NYC and the "47° or above" bucket is cheap, then the skill imports the event, buys that bucket on Kalshi and holds it', async () => {
    if (!s.service) return; // skipped: no client venv
    const admin = await kalshiEmulatorAdmin(s.base, operatorToken);
    // Tomorrow (UTC, the skill's clock), as Kalshi's daily series list it. The prices drift a few
    // cents every 10 s on the emulated venue: the bucket the forecast falls in starts far below the
    // entry threshold.
    const day = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const listed = highTemperatureEvent({
      series: 'KXHIGHNY',
      place: 'NYC',
      station: 'Central Park, New York',
      date: day,
      lowest: 41,
      prices: [0.1, 0.2, 0.38, 0.24, 0.05],
    });
    const event = await jsonCall<{
      event_ticker: string;
      markets: { ticker: string; yes_sub_title: string }[];
    }>(`${admin}/events`, 'POST', listed);
    const top = event.markets.at(-1)!;
    assert.equal(top.yes_sub_title, '47° or above');
    noaa = await startNoaaStandIn([
      {
        point: NYC_POINT,
        office: 'OKX',
        gridX: 37,
        gridY: 38,
        utcOffset: '-05:00',
        days: [{ date: day, high: 48, low: 37 }],
        station: { id: 'KLGA', celsius: 6.1 },
      },
    ]);

    // Kalshi is self-custody only (SKILL.md): a claimed agent with real trading on, and the Solana
    // wallet of SOLANA_PRIVATE_KEY KYC-verified (DFlow Proof) and funded on the emulated chain. The
    // client registers the wallet with the service itself on its first trade.
    const agent = await claimedAgentOnService(s.base, jwtSecret, 'kalshi-weather-skill');
    const wallet = Keypair.generate();
    const address = wallet.publicKey.toBase58();
    await jsonCall(`${admin}/kyc/${address}`, 'POST', {});
    await jsonCall(`${admin}/wallets/${address}/fund`, 'POST', { usdc: 100, sol: 1 });

    const run = await runSkillModule(s, SKILL_DIR, LIVE_RUN, agent.apiKey, [noaa.url], {
      SOLANA_PRIVATE_KEY: encodeBase58(wallet.secretKey),
      SIMMER_WEATHER_LOCATIONS: 'NYC',
    });
    const tail = `skill output:\n${run.output}\n--- service:\n${s.service.output().slice(-3000)}`;
    assert.equal(run.code, 0, tail);
    assert.match(run.output, /Locations: +NYC\n/, tail);
    // Discovery: the five buckets are importable and imported.
    for (const m of event.markets)
      assert.ok(
        run.output.includes(`  Imported: ${listed.title} — ${m.yes_sub_title}\n`),
        `${m.yes_sub_title} not imported\n${tail}`,
      );
    assert.match(run.output, /Auto-imported 5 new market\(s\)\n/, tail);
    assert.match(run.output, /Found 5 weather markets\n {2}Grouped into 1 events\n/, tail);
    // NOAA: the stand-in's forecast for the event's day, and the bucket it falls in.
    assert.ok(run.output.includes(`📍 NYC ${day} (high temp)\n`), tail);
    assert.match(run.output, /NOAA forecast: 48°F\n/, tail);
    assert.match(run.output, /Matching bucket: 47° or above @ \$0\.\d\d\n/, tail);
    assert.match(run.output, /Edge \d+\.\d% ≥ threshold \d+\.\d% - good opportunity/, tail);
    assert.match(run.output, /✅ Below threshold \(\$0\.15\) - BUY opportunity!/, tail);
    assert.match(
      run.output,
      /Executing trade \(LIVE\)\.\.\.\n {2}✅ Bought \d+\.0 shares @ \$0\.\d\d\n/,
      tail,
    );
    assert.doesNotMatch(run.output, /❌|⛔|Safeguard blocked|Failed to/, tail);
    assert.match(run.output, /Entry opportunities: 1\n/, tail);
    assert.match(run.output, /Trades executed: +1\n/, tail);
    assert.deepEqual(
      noaa.requests.slice(0, 2),
      [`/points/${NYC_POINT}`, '/gridpoints/OKX/37,38/forecast'],
      tail,
    );

    // Server side: one filled Kalshi buy of that bucket, tagged with the skill's source, and the
    // position it opened (what the skill's exit check then read as "hold").
    const trades = await until(
      () =>
        jsonCall<{
          trades: {
            venue: string;
            action: string;
            side: string;
            shares: number;
            status: string;
            source: string;
            market_id: string;
            market_question: string;
          }[];
        }>(`${s.base}/api/sdk/trades?limit=10`, 'GET', undefined, agent.apiKey),
      (t) => t.trades.every((x) => x.status === 'filled'),
    );
    assert.equal(trades.trades.length, 1, JSON.stringify(trades));
    const [trade] = trades.trades;
    assert.deepEqual(
      [trade!.venue, trade!.action, trade!.side, trade!.status, trade!.source],
      ['kalshi', 'buy', 'yes', 'filled', 'sdk:kalshi-weather'],
      JSON.stringify(trade),
    );
    assert.ok(trade!.market_question.endsWith('— 47° or above'), JSON.stringify(trade));
    assert.ok(run.output.includes(`✅ Bought ${trade!.shares.toFixed(1)} shares`), tail);
    const positions = await jsonCall<{ positions: { market_id: string; shares_yes: number }[] }>(
      `${s.base}/api/sdk/positions?venue=kalshi`,
      'GET',
      undefined,
      agent.apiKey,
    );
    assert.deepEqual(
      positions.positions.map((p) => [p.market_id, p.shares_yes]),
      [[trade!.market_id, trade!.shares]],
    );
    assert.match(
      run.output,
      /📊 Highest temperature in NYC on .*\n {5}Price \$0\.\d\d < exit threshold \$0\.45 - hold\n/,
      tail,
    );
    // The emulated chain: the wallet's order for that bucket landed.
    const orders = await jsonCall<
      { ticker: string; user: string; action: string; signature: string | null }[]
    >(`${admin}/orders`, 'GET');
    assert.deepEqual(
      orders.filter((o) => o.user === address && o.signature).map((o) => [o.ticker, o.action]),
      [[top.ticker, 'buy']],
    );

    if (process.env.KALSHI_WEATHER_SKILL_TRANSCRIPT) console.log(run.output);
  });
});
