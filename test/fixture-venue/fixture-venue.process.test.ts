import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServiceOnFreePort, type ServiceProcess } from '../support/service-process.js';
import { FIXTURE_BASE_URL } from './fixture-adapter.js';
import { FIXTURE_PLAY_MONEY, FIXTURE_VENUE, seededQuestion } from './index.js';

/** The market the service's fixture venue lists from its settings, and its page slug. */
const MARKET_ID = 'fx-process';
const SLUG = `${seededQuestion(MARKET_ID).toLowerCase().replace(/ /g, '-')}-${MARKET_ID}`;

describe('the fixture venue loaded through VENUE_MODULES by a service process #integration', function () {
  this.timeout(180_000);
  let dataDir: string;
  let service: ServiceProcess | undefined;
  let base: string;
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ats-venue-module-'));
    ({ service, base } = await startServiceOnFreePort(dataDir, () => ({
      VENUE_MODULES: 'test/fixture-venue/index.ts',
      FIXTURE_VENUE_MARKETS: `${MARKET_ID}=0.4`,
    })));
  });
  after(async () => {
    if (service && service.proc.exitCode === null) {
      service.proc.kill('SIGTERM');
      await service.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  const call = async (method: string, path: string, key?: string, body?: unknown) => {
    const r = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  };

  it('when an unclaimed agent finds a fixture market among the importable ones, imports it and buys on it, then the buy fills and its position and the venue board are in the fixture’s play money', async () => {
    const registered = await call('POST', '/api/sdk/agents/register', undefined, {
      name: 'module-venue-agent',
    });
    assert.equal(registered.status, 200, JSON.stringify(registered.body));
    const key = registered.body.api_key as string;

    const importable = await call('GET', `/api/sdk/markets/importable?venue=${FIXTURE_VENUE}`, key);
    assert.equal(importable.status, 200, JSON.stringify(importable.body));
    assert.deepEqual(
      (importable.body.markets as { url: string }[]).map((m) => m.url),
      [`${FIXTURE_BASE_URL}/markets/${SLUG}`],
    );

    const imported = await call('POST', '/api/sdk/markets/import/venue', key, {
      venue: FIXTURE_VENUE,
      url: `${FIXTURE_BASE_URL}/markets/${SLUG}`,
    });
    assert.equal(imported.status, 200, JSON.stringify(imported.body));
    assert.equal(imported.body.status, 'imported');
    assert.equal(imported.body.import_source, FIXTURE_VENUE);
    const marketId = imported.body.market_id as string;

    const buy = await call('POST', '/api/sdk/trade', key, {
      venue: FIXTURE_VENUE,
      market_id: marketId,
      side: 'yes',
      action: 'buy',
      amount: 10,
    });
    assert.equal(buy.status, 200, JSON.stringify(buy.body));
    assert.equal(buy.body.success, true, JSON.stringify(buy.body));
    assert.equal(buy.body.fill_status, 'filled');

    const positions = await call('GET', `/api/sdk/positions?venue=${FIXTURE_VENUE}&status=all`, key);
    assert.equal(positions.status, 200, JSON.stringify(positions.body));
    const position = (positions.body.positions as { market_id: string; currency: string }[]).find(
      (p) => p.market_id === marketId,
    );
    assert.equal(position?.currency, FIXTURE_PLAY_MONEY.unit, JSON.stringify(positions.body));

    // Listings by venue take it too (none of its markets is a short-window one).
    const fast = await call('GET', `/api/sdk/fast-markets?venue=${FIXTURE_VENUE}`, key);
    assert.equal(fast.status, 200, JSON.stringify(fast.body));

    const board = await call('GET', `/api/leaderboard/${FIXTURE_VENUE}`);
    assert.equal(board.status, 200, JSON.stringify(board.body));
    assert.equal(board.body.venue, FIXTURE_VENUE);
    assert.equal(board.body.currency, FIXTURE_PLAY_MONEY.currency);
  });
});
