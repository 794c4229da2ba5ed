import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import mongoose from 'mongoose';
import { reactorStreamKey } from '../../shared/domains/reactor/reactor-event-stream.js';
import { fillFeedLeaseKey } from '../../shared/domains/fill-feed/fill-feed-follower.js';
import { testContext } from '../support/context.js';
import {
  deploymentEnv,
  startRoleProcess,
  startSplitDeployment,
  stopRoleProcess,
  type RoleProcess,
} from '../support/role-processes.js';
import { until } from '../support/until.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Fills made in all; 4 in 5 are of watched wallets. */
const MAX_FILLS = 150;
const wallet = () => `0x${randomBytes(20).toString('hex')}`;

async function json<T>(res: Response, what: string): Promise<T> {
  const text = await res.text();
  assert.ok(res.ok, `${what}: HTTP ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/**
 * The acceptance of issue 37: "restart the service and kill a worker while fills stream in: no
 * signal lost, none doubled, the cursor resumed". The service runs as compose runs it (an API, two
 * workers processes, a scheduler, as separate OS processes on this run's Redis and database, with a
 * database and queue prefix of their own); two agents watch two wallets. While the emulator's admin
 * makes those wallets (and one nobody watches) trade, one fill after another, the workers process
 * that holds the fill feed's lease is SIGKILLed (the other takes over), then every process is
 * SIGKILLed and the service started again (the fills mined meanwhile are caught up from the cursor).
 * Afterwards the chain's mined fills are compared with what the service made of them.
 */
describe('Reactor: fills stream in while the fill feed’s workers process is SIGKILLed and the whole service is killed and restarted #integration', function () {
  this.timeout(600_000);
  const procs: RoleProcess[] = [];
  let conn: mongoose.Connection | undefined;

  after(async () => {
    await Promise.allSettled(procs.map((p) => stopRoleProcess(p, 5000)));
    if (conn) {
      await conn.dropDatabase().catch(() => undefined);
      await conn.close();
    }
  });

  it('when 2 agents watch 2 wallets whose fills are mined one after another through a kill of the lease holder and a kill and restart of every process, then each mined fill of a watched wallet is exactly one pending signal and one stream event per agent, an unwatched wallet’s none, and the cursor went on past the restart', async () => {
    const ctx = testContext();
    const tag = randomBytes(4).toString('hex');
    const prefix = `reactor-restart-${tag}`;
    const dbName = `${ctx.env.MONGODB_DB}_reactor_${tag}`;
    const env = deploymentEnv(prefix, {
      MONGODB_DB: dbName,
      FILL_FEED_POLL_MS: '100',
      FILL_FEED_LEASE_MS: '2000',
      REACTOR_SIGNAL_TTL_SECONDS: '3600',
      WORKER_LOCK_DURATION_MS: '2000',
    });
    const started = await startSplitDeployment({ apis: 1, workers: 2, jobs: 1 }, env);
    procs.push(...started.all);
    let api = started.apis[0]!.url;
    let workers = started.workers;
    conn = await mongoose.createConnection(ctx.mongoUri, { dbName }).asPromise();
    const cursors = conn.collection<{ _id: string; block: number; holder: string }>('fill_feed_cursors');
    const admin = ctx.polymarket.adminUrl;
    const emu = async <T>(method: string, path: string, body?: unknown) =>
      json<T>(
        await fetch(`${admin}${path}`, {
          method,
          headers: { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
        `emulator ${method} ${path}`,
      );

    // A market the watchers' venue knows, and two agents watching two wallets on sim.
    const created = await emu<{ markets: { condition_id: string; slug: string }[] }>('POST', '/events', {
      title: `Reactor restart ${tag}: will every fill be followed?`,
      slug: `reactor-restart-${tag}`,
      outcomes: ['Yes', 'No'],
      prices: [0.5, 0.5],
    });
    const market = created.markets[0]!;
    const watched = [wallet(), wallet()];
    const unwatched = wallet();
    const agents: { id: string; key: string }[] = [];
    for (let i = 0; i < 2; i++) {
      const reg = await json<{ agent_id: string; api_key: string }>(
        await fetch(`${api}/api/sdk/agents/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: `reactor-restart-${tag}-${i}` }),
        }),
        'register',
      );
      agents.push({ id: reg.agent_id, key: reg.api_key });
    }
    const as = (key: string, init: RequestInit = {}) => ({
      ...init,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    });
    await json(
      await fetch(
        `${api}/api/sdk/markets/import`,
        as(agents[0]!.key, {
          method: 'POST',
          body: JSON.stringify({ polymarket_url: `https://polymarket.com/market/${market.slug}` }),
        }),
      ),
      'import',
    );
    for (const a of agents) {
      await json(
        await fetch(
          `${api}/api/sdk/reactor/config`,
          as(a.key, {
            method: 'PATCH',
            body: JSON.stringify({
              wallets: watched,
              venue: 'sim',
              mirror_fraction: 0.1,
              daily_cap: 1_000_000,
            }),
          }),
        ),
        'PATCH reactor config',
      );
    }
    // The feed follows from its first cursor on: fills before it are nobody's signals.
    const first = await until(
      () => cursors.findOne({ _id: 'polymarket' }),
      (c) => c !== null,
      30_000,
    );
    assert.ok(first, 'the fill feed wrote its first cursor');

    // Fills, one every 150 ms (600 ms during the outage), until the chaos below is over and 10 more
    // went in after it, and at most MAX_FILLS (their signals then fit in one answer of GET /pending,
    // which shows at most 200).
    type Phase = 'before' | 'outage' | 'after';
    const fills: { tx: string; wallet: string; at: Phase }[] = [];
    // Typed, not narrowed to its first value: the loop below reads what the chaos sets meanwhile.
    let phase = 'before' as Phase;
    let afterChaos = -1;
    const stream = (async () => {
      for (let i = 0; i < MAX_FILLS && (afterChaos < 0 || fills.length < afterChaos + 10); i++) {
        const who = i % 5 === 4 ? unwatched : watched[i % 2]!;
        const fill = await emu<{ transaction_hash: string }>(
          'POST',
          `/markets/${market.condition_id}/fills`,
          {
            wallet: who,
            side: 'BUY',
            shares: 10 + (i % 7),
          },
        );
        fills.push({ tx: fill.transaction_hash.toLowerCase(), wallet: who, at: phase });
        // Slower while every process is down: the restart's length depends on the machine.
        await sleep(phase === 'outage' ? 600 : 150);
      }
    })();

    // 1. The workers process that follows the feed (the lease names its pid) is SIGKILLed.
    await until(
      async () => fills.length,
      (n) => n >= 8,
      60_000,
    );
    const holder = await ctx.deps.redis.get(fillFeedLeaseKey(prefix));
    const holderPid = Number(holder?.split(':')[1]);
    const follower = workers.find((w) => w.proc.pid === holderPid);
    assert.ok(follower, `the lease holder ${holder} is one of the workers processes`);
    follower.proc.kill('SIGKILL');
    await follower.exited;
    const replacement = await startRoleProcess('workers', env);
    procs.push(replacement);
    workers = [...workers.filter((w) => w !== follower), replacement];

    // 2. Every process is SIGKILLed while fills go on being mined; then the service starts again.
    await until(
      async () => fills.length,
      (n) => n >= 20,
      60_000,
    );
    const live = procs.filter((p) => p.proc.exitCode === null && p.proc.signalCode === null);
    phase = 'outage';
    for (const p of live) p.proc.kill('SIGKILL');
    await Promise.all(live.map((p) => p.exited));
    const cursorAtKill = (await cursors.findOne({ _id: 'polymarket' }))!;
    await sleep(2000);
    const restarted = await startSplitDeployment({ apis: 1, workers: 2, jobs: 1 }, env);
    procs.push(...restarted.all);
    api = restarted.apis[0]!.url;
    phase = 'after';
    afterChaos = fills.length;
    await stream;

    // Every fill mined (the emulated chain mines on its clock), then read by the feed.
    const txs = await until(
      () =>
        Promise.all(
          fills.map((f) =>
            emu<{ status: string; block_number: number | null }>('GET', `/polygon/transactions/${f.tx}`),
          ),
        ),
      (mined) => mined.every((t) => t.status === 'mined'),
      30_000,
    );
    assert.deepEqual(
      txs.filter((t) => t.status !== 'mined'),
      [],
      'every fill mined',
    );
    const lastBlock = Math.max(...txs.map((t) => t.block_number!));
    const cursorAfter = (await until(
      () => cursors.findOne({ _id: 'polymarket' }),
      (c) => c!.block >= lastBlock,
      60_000,
    ))!;

    const expected = fills.filter((f) => f.wallet !== unwatched).map((f) => f.tx);
    const ignored = new Set(fills.filter((f) => f.wallet === unwatched).map((f) => f.tx));
    const figures = () =>
      `${fills.length} fills (${expected.length} of watched wallets: ${fills.filter((f) => f.at === 'outage' && f.wallet !== unwatched).length} while every process was down, ${fills.filter((f) => f.at === 'after' && f.wallet !== unwatched).length} after the restart), blocks to ${lastBlock}; cursor at the kill ${cursorAtKill.block}, now ${cursorAfter.block}`;

    // Each agent's pending: one signal per watched fill, none of the unwatched wallet.
    const pendingOf = async (key: string) =>
      (
        await json<{ reactor_signals: { tx_hash: string; signal_id: string }[] }>(
          await fetch(`${api}/api/sdk/reactor/pending?caps=maker`, as(key)),
          'pending',
        )
      ).reactor_signals;
    for (const a of agents) {
      const pending = await until(
        () => pendingOf(a.key),
        (got) => expected.every((tx) => got.some((s) => s.tx_hash.toLowerCase() === tx)),
        60_000,
      );
      const count = new Map<string, number>();
      for (const s of pending)
        count.set(s.tx_hash.toLowerCase(), (count.get(s.tx_hash.toLowerCase()) ?? 0) + 1);
      assert.deepEqual(
        expected.filter((tx) => count.get(tx) !== 1),
        [],
        `agent ${a.id}: fills without exactly one pending signal; ${figures()}`,
      );
      assert.deepEqual(
        pending.filter((s) => ignored.has(s.tx_hash.toLowerCase())),
        [],
        `agent ${a.id}: signals of the unwatched wallet`,
      );
    }

    // The stream: one reactor_event per agent and watched fill, never two.
    const raw = (await ctx.deps.redis.xrange(reactorStreamKey(prefix), '-', '+')) as [string, string[]][];
    const events = new Map<string, number>();
    for (const [, fields] of raw) {
      const f: Record<string, string> = {};
      for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
      if (f.e !== 'reactor_event') continue;
      const data = JSON.parse(f.d!) as { signal_id: string };
      const k = `${f.a}|${data.signal_id.toLowerCase()}`;
      events.set(k, (events.get(k) ?? 0) + 1);
    }
    const wrongEvents = agents.flatMap((a) =>
      expected
        .filter((tx) => events.get(`${a.id}|${tx}`) !== 1)
        .map((tx) => `${a.id}|${tx}: ${events.get(`${a.id}|${tx}`) ?? 0}`),
    );
    assert.deepEqual(wrongEvents, [], `stream events not exactly one per agent and fill; ${figures()}`);
    assert.equal(
      [...events.keys()].filter((k) => ignored.has(k.split('|')[1]!)).length,
      0,
      'stream events of the unwatched wallet',
    );

    // The database: each watched fill's taker leg stored once, one signal per agent and fill.
    const signals = conn.collection<{ agentId: string; txHash: string }>('reactor_signals');
    for (const a of agents) {
      const rows = await signals.find({ agentId: a.id }).toArray();
      assert.equal(rows.length, expected.length, `agent ${a.id}: signal documents; ${figures()}`);
    }
    const takerLegs = await conn
      .collection<{ txHash: string }>('venue_fills')
      .countDocuments({ txHash: { $in: fills.map((f) => f.tx) }, leg: 'taker' });
    assert.equal(takerLegs, fills.length, `taker legs stored; ${figures()}`);

    // The cursor resumed: past the block it stood at when everything was killed, with fills mined
    // during the outage among those followed.
    assert.ok(
      fills.some((f) => f.at === 'outage' && f.wallet !== unwatched),
      `no watched fill during the outage; ${figures()}`,
    );
    assert.ok(cursorAfter.block > cursorAtKill.block, figures());
    assert.ok(
      fills.some((f) => f.at === 'after' && f.wallet !== unwatched),
      `no watched fill after the restart; ${figures()}`,
    );
    assert.notEqual(cursorAfter.holder, cursorAtKill.holder, 'a new process follows after the restart');
    console.log(`      ${figures()}`);
  });
});
