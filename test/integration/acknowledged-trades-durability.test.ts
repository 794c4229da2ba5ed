import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mongoose from 'mongoose';
import { freePort } from '../../shared/infra/embedded/child-process.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';

/** Agents that may buy the same market sides over and over (as bench/measure.ts TRADING_BENCH_ENV). */
const TRADING_ENV = {
  REGISTER_RATE_LIMIT_PER_MINUTE: '1000000',
  SIM_COOLDOWN_SECONDS: '0',
  FAILED_TRADE_COOLDOWN_SECONDS: '0',
  TIER_MAX_TRADES_PER_DAY: '1000000,1000000,1000000',
};

const post = (url: string, body: unknown, key?: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });

/** The children `npm start` recorded in its lock file: [redis-server, MongoDB-wire server]. */
const embeddedChildren = (dataDir: string) =>
  (JSON.parse(readFileSync(join(dataDir, 'embedded.pid'), 'utf8')) as { children: number[] }).children;

const mongoUriOf = (service: ServiceProcess) => {
  const m = /Started (?:mongod|mongo-java-server) at (mongodb:\/\/\S+)/.exec(service.output());
  assert.ok(m, `the banner names the MongoDB-wire server:\n${service.output()}`);
  return m[1]!;
};

describe('acknowledged trades on the embedded default survive a crash of its database #integration', function () {
  this.timeout(400_000);
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'ats-ack-durability-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('when the MongoDB-wire server is killed with SIGKILL while trades flow, then every trade answered filled is in the database after a restart', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // Whichever engine the embedded default picks (mongod when on the PATH): the promise is the same.
    const first = await startServiceProcess(dataDir, port, TRADING_ENV);
    const keys: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await post(`${base}/api/sdk/agents/register`, { name: `durable-${i}` });
      assert.equal(r.status, 200);
      keys.push(((await r.json()) as { api_key: string }).api_key);
    }
    const list = await fetch(`${base}/api/sdk/markets?limit=8&venue=sim`, {
      headers: { authorization: `Bearer ${keys[0]}` },
    });
    const markets = ((await list.json()) as { markets: { id: string }[] }).markets.map((m) => m.id);
    assert.ok(markets.length >= 2);

    // Four clients trade back to back until 40 trades are filled; the database dies while they go on.
    const filled: string[] = [];
    let trading = true;
    const trade = async (i: number) => {
      try {
        const r = await post(
          `${base}/api/sdk/trade`,
          {
            market_id: markets[i % markets.length],
            side: i % 2 ? 'yes' : 'no',
            amount: 1,
            idempotency_key: `durable-${i}`,
          },
          keys[i % keys.length],
        );
        const body = (await r.json()) as { success?: boolean; fill_status?: string; trade_id?: string };
        if (r.status === 200 && body.success && body.fill_status === 'filled') filled.push(body.trade_id!);
      } catch {
        // The service answering nothing is not an acknowledgement.
      }
    };
    const clients = [0, 1, 2, 3].map(async (k) => {
      for (let i = k; trading; i += 4) await trade(i);
    });
    const deadline = Date.now() + 120_000;
    while (filled.length < 40 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const [, mongoPid] = embeddedChildren(dataDir);
    process.kill(mongoPid!, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 1000));
    trading = false;
    await Promise.race([Promise.all(clients), new Promise((r) => setTimeout(r, 10_000))]);
    const acknowledged = [...filled];
    // A supervised database is restarted: wait until its new process is recorded, so that the
    // SIGKILL below leaves nothing unrecorded behind for the next start to trip over.
    const until = Date.now() + 60_000;
    while (Date.now() < until && embeddedChildren(dataDir)[1] === mongoPid)
      await new Promise((r) => setTimeout(r, 200));
    first.proc.kill('SIGKILL');
    await first.exited;
    assert.ok(acknowledged.length >= 40, `trades were filled before the crash (${acknowledged.length})`);

    // The same data directory: the restart stops the dead service's Redis and reopens the H2 file.
    const second = await startServiceProcess(dataDir, port, TRADING_ENV);
    const conn = await mongoose.createConnection(mongoUriOf(second), { dbName: 'agent_trading' }).asPromise();
    try {
      const found = await conn
        .db!.collection<{ _id: string }>('trades')
        .find({ _id: { $in: acknowledged }, status: 'filled' }, { projection: { _id: 1 } })
        .toArray();
      const missing = acknowledged.filter((id) => !found.some((t) => t._id === id));
      assert.deepEqual(
        missing,
        [],
        `${missing.length} of ${acknowledged.length} trades answered filled were lost`,
      );
    } finally {
      await conn.close();
      second.proc.kill('SIGTERM');
      await second.exited;
    }
  });

  it('when the database lost a trade that Redis answered and counted, then the restarted service neither replays it as success nor counts it', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const dir = mkdtempSync(join(tmpdir(), 'ats-ack-reconcile-'));
    try {
      const first = await startServiceProcess(dir, port, TRADING_ENV);
      const r = await post(`${base}/api/sdk/agents/register`, { name: 'reconciled' });
      const { api_key: key, agent_id: agentId } = (await r.json()) as { api_key: string; agent_id: string };
      const list = await fetch(`${base}/api/sdk/markets?limit=2&venue=sim`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const [marketId] = ((await list.json()) as { markets: { id: string }[] }).markets.map((m) => m.id);
      const buy = { market_id: marketId, side: 'yes', amount: 1, idempotency_key: 'lost-in-crash' };
      const lost = (await (await post(`${base}/api/sdk/trade`, buy, key)).json()) as { trade_id: string };
      const kept = await post(`${base}/api/sdk/trade`, { ...buy, idempotency_key: 'kept' }, key);
      assert.equal(((await kept.json()) as { fill_status: string }).fill_status, 'filled');
      const todayCount = async () => {
        const seen = await fetch(`${base}/api/sdk/agents/${agentId}/cooldowns`, {
          headers: { authorization: `Bearer ${key}` },
        });
        return ((await seen.json()) as { daily: { trades_today: number } }).daily.trades_today;
      };
      assert.equal(await todayCount(), 2);
      // What a database killed before its write was durable leaves: Redis answered and counted a
      // trade the database does not have.
      const conn = await mongoose
        .createConnection(mongoUriOf(first), { dbName: 'agent_trading' })
        .asPromise();
      await conn.db!.collection<{ _id: string }>('trades').deleteOne({ _id: lost.trade_id });
      await conn.close();
      first.proc.kill('SIGKILL');
      await first.exited;

      const second = await startServiceProcess(dir, port, TRADING_ENV);
      try {
        assert.equal(await todayCount(), 1, 'the lost trade is no longer counted');
        const replay = await post(`${base}/api/sdk/trade`, buy, key);
        const body = (await replay.json()) as { trade_id: string };
        assert.notEqual(body.trade_id, lost.trade_id, 'a replay is not the lost trade’s success');
      } finally {
        second.proc.kill('SIGTERM');
        await second.exited;
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
