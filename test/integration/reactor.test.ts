import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { ReactorConfigUpdateSchema } from '../../shared/domains/reactor/reactor-config.schemas.js';
import { importedMarketId } from '../../shared/domains/imports/imported-market.js';
import { reactToFills } from '../../shared/domains/reactor/react-to-fills.js';
import { withdrawSignalsOfFills } from '../../shared/domains/reactor/withdraw-fills.js';
import {
  readReactorEventsAfter,
  reactorStreamKey,
} from '../../shared/domains/reactor/reactor-event-stream.js';
import type { VenueFill } from '../../shared/domains/venues/venue-fill.js';
import { testContext } from '../support/context.js';
import { makeMarket } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { jobCompleted } from '../support/jobs.js';
import { until } from '../support/until.js';
import { webhookReceiver } from '../support/webhook-receiver.js';
import { newPolymarketEvent } from '../support/venue-emulators.js';

/**
 * Reactor (issue 37, item 2): watched wallets' fills, as the fill feed stores them in `venue_fills`,
 * become each watching agent's signals through the `react-to-fills` job; the clients read them over
 * the routes of client-contract §12.1. Fills are written here as the feed writes them, so each test
 * says exactly which wallet traded what.
 */
const wallet = () => `0x${randomBytes(20).toString('hex')}`;
const txHash = () => `0x${randomBytes(32).toString('hex')}`;
const as = (a: RegisteredAgent) => ({ Authorization: `Bearer ${a.api_key}` });
const get = (a: RegisteredAgent, path: string) => api().get(path).set(as(a));
const patchConfig = (a: RegisteredAgent, body: Record<string, unknown>) =>
  api().patch('/api/sdk/reactor/config').set(as(a)).send(body);

/** A market imported from the emulated venue, as an import stores it (venueRef), with its condition id and tokens. */
async function importedMarket() {
  const conditionId = txHash();
  const yes = BigInt(`0x${randomBytes(16).toString('hex')}`).toString();
  const no = BigInt(`0x${randomBytes(16).toString('hex')}`).toString();
  const market = await makeMarket({
    importSource: 'polymarket',
    venueRef: {
      venue: 'polymarket',
      externalId: conditionId,
      yesTokenId: yes,
      noTokenId: no,
      negRisk: false,
    },
    venueSlug: `slug-${conditionId.slice(2, 10)}`,
  });
  return { market, conditionId, yes, no };
}
type Market = Awaited<ReturnType<typeof importedMarket>>;

let logIndex = 0;
/** Stores one fill leg as the fill feed does; answers it. */
async function storeFill(
  m: Pick<Market, 'conditionId' | 'yes' | 'no'> & { title?: string; slug?: string },
  fill: Partial<VenueFill> & { wallet: string },
): Promise<VenueFill> {
  const tx = fill.txHash ?? txHash();
  const leg = fill.leg ?? 'taker';
  const index = fill.logIndex ?? logIndex++;
  const doc: VenueFill & { recordedAt: Date } = {
    _id: `${tx}:${index}:${leg}`,
    venue: 'polymarket' as VenueFill['venue'],
    txHash: tx,
    logIndex: index,
    blockNumber: 1,
    blockHash: txHash(),
    at: new Date(),
    leg,
    action: 'buy',
    outcome: 'yes',
    tokenId: m.yes,
    price: 0.4,
    shares: 200,
    market: {
      externalId: m.conditionId,
      yesTokenId: m.yes,
      noTokenId: m.no,
      title: m.title ?? 'Will the test pass?',
      slug: m.slug ?? 'will-the-test-pass',
      outcomeLabel: 'Yes',
    },
    withdrawnAt: null,
    recordedAt: new Date(),
    ...fill,
  };
  await testContext().deps.models.VenueFill.create(doc);
  return doc;
}

interface PendingSignal {
  signal_id: string;
  tx_hash: string;
  market_id: string;
  side: string;
  action: string;
  amount: number;
  venue: string;
  leg: string;
  created_at: string;
  expires_at: string;
  whale: Record<string, unknown>;
}
const pending = async (a: RegisteredAgent, caps?: string) => {
  const res = await get(a, `/api/sdk/reactor/pending${caps ? `?caps=${caps}` : ''}`).expect(200);
  return res.body.reactor_signals as PendingSignal[];
};

/** The stream entries of an agent written since `since` (ms). */
async function streamEntries(agentId: string, since: number) {
  const { deps, env } = testContext();
  const all = await readReactorEventsAfter(deps.redis, env.QUEUE_PREFIX, `${since}-0`, 100_000);
  return all.filter((e) => e.agentId === agentId);
}

async function watcher(wallets: string[], extra: Record<string, unknown> = {}) {
  const agent = await registerAgent();
  const res = await patchConfig(agent, { wallets, ...extra });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return agent;
}

describe('reactor #integration', function () {
  this.timeout(60_000);

  describe('config', () => {
    it('when an agent never changed its config, then GET answers the defaults the clients read', async () => {
      const agent = await registerAgent();
      const res = await get(agent, '/api/sdk/reactor/config').expect(200);
      assert.deepEqual(res.body.wallets, []);
      assert.deepEqual(res.body.watchlist, []);
      assert.equal(res.body.price_buffer, 0.02);
      assert.equal(res.body.venue, 'sim');
      assert.equal(res.body.enabled, true);
      assert.equal(res.body.mirror_fraction, 0.1);
      assert.equal(res.body.max_size, 100);
      assert.equal(res.body.daily_cap, 100);
      assert.equal(res.body.daily_cap_used, 0);
    });

    it('when wallets are set in any case, then they are lower-cased and the watchlist shows them; a watchlist PATCH keeps labels and wallets follow it', async () => {
      const agent = await registerAgent();
      const w1 = wallet();
      const w2 = wallet();
      let res = await patchConfig(agent, {
        wallets: [w1.toUpperCase().replace('0X', '0x'), w2],
        min_size: 5,
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.wallets, [w1, w2]);
      assert.deepEqual(res.body.watchlist[0], {
        wallet: w1,
        label: null,
        auto_copy: false,
        enabled: true,
        min_size: 0,
      });
      assert.equal(res.body.min_size, 5);

      res = await patchConfig(agent, {
        watchlist: [
          { wallet: w1, label: 'Whale one', auto_copy: true, min_size: 50 },
          { wallet: w2, enabled: false },
        ],
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.wallets, [w1]);
      // `wallets` naming w2 again enables it; w1 keeps its label, auto_copy and min_size.
      res = await patchConfig(agent, { wallets: [w1, w2] });
      assert.deepEqual(res.body.watchlist, [
        { wallet: w1, label: 'Whale one', auto_copy: true, enabled: true, min_size: 50 },
        { wallet: w2, label: null, auto_copy: false, enabled: true, min_size: 0 },
      ]);
      // The whole config sent back as read is accepted.
      const read = (await get(agent, '/api/sdk/reactor/config').expect(200)).body;
      const settable = Object.keys(ReactorConfigUpdateSchema.shape);
      res = await patchConfig(agent, Object.fromEntries(settable.map((k) => [k, read[k]])));
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.watchlist, read.watchlist);
    });

    it('when a config change is invalid, then it answers 422 naming the field with a fix, and nothing changes', async () => {
      const agent = await watcher([wallet()]);
      const before = (await get(agent, '/api/sdk/reactor/config').expect(200)).body;
      const w = wallet();
      const cases: [Record<string, unknown>, string][] = [
        [{ wallets: ['0x1234'] }, 'wallets'],
        [{ price_buffer: 0.3 }, 'price_buffer'],
        [{ mirror_fraction: 0 }, 'mirror_fraction'],
        [{ max_size: 0 }, 'max_size'],
        [{ min_size: -1 }, 'min_size'],
        [{ venue: 'nowhere' }, 'venue'],
        [{ wallets: Array.from({ length: 101 }, wallet) }, 'wallets'],
        [{ balance: 5 }, 'balance'],
        [{ watchlist: [{ wallet: w }, { wallet: w.toUpperCase().replace('0X', '0x') }] }, 'watchlist'],
        [{ watchlist: [{ wallet: w }], wallets: [wallet()] }, 'wallets'],
      ];
      for (const [body, field] of cases) {
        const res = await patchConfig(agent, body);
        assert.equal(res.status, 422, `${JSON.stringify(body)} → ${res.status} ${JSON.stringify(res.body)}`);
        assert.ok(typeof res.body.fix === 'string' && res.body.fix.length > 0, JSON.stringify(res.body));
        assert.ok(
          (res.body.detail as { loc: string[] }[]).some((d) => d.loc.includes(field)),
          `${field} named: ${JSON.stringify(res.body.detail)}`,
        );
      }
      const after = (await get(agent, '/api/sdk/reactor/config').expect(200)).body;
      assert.deepEqual(after, before);
    });
  });

  describe('signals', () => {
    it('when a watched wallet takes 200 shares, then each watcher gets one signal (mirror 20 shares × 0.4 = 8) and a non-watcher none', async () => {
      const whale = wallet();
      const m = await importedMarket();
      const [a, b, outsider] = await Promise.all([
        watcher([whale], { venue: 'polymarket' }),
        watcher([wallet(), whale]),
        watcher([wallet()]),
      ]);
      const since = Date.now() - 1000;
      const fill = await storeFill(m, { wallet: whale });
      await reactToFills(testContext().deps, [fill._id]);

      const [sa] = await pending(a);
      assert.equal((await pending(a)).length, 1);
      assert.deepEqual(
        { ...sa, created_at: undefined, expires_at: undefined },
        {
          signal_id: fill.txHash,
          type: 'copytrade',
          tx_hash: fill.txHash,
          market_id: m.market._id,
          side: 'yes',
          action: 'buy',
          amount: 8,
          venue: 'polymarket',
          leg: 'taker',
          created_at: undefined,
          expires_at: undefined,
          whale: {
            wallet: whale,
            label: null,
            side: 'BUY',
            token: m.yes,
            price: 0.4,
            size: 200,
            condition_id: m.conditionId,
            market_title: 'Will the test pass?',
            market_slug: 'will-the-test-pass',
            outcome: 'Yes',
          },
        },
      );
      const expiresIn = Date.parse(sa!.expires_at) - Date.parse(sa!.created_at);
      assert.equal(expiresIn, testContext().env.REACTOR_SIGNAL_TTL_SECONDS * 1000);
      const sb = await pending(b);
      assert.equal(sb.length, 1);
      assert.equal(sb[0]!.venue, 'sim');
      assert.deepEqual(await pending(outsider), []);

      // One reactor_event each on the stream, the MCP client's shape; the events route shows the same.
      const entries = await streamEntries(a.agent_id, since);
      assert.equal(entries.length, 1);
      assert.equal(entries[0]!.event, 'reactor_event');
      const data = entries[0]!.data;
      assert.equal(data.whale_wallet, whale);
      assert.equal(data.side, 'BUY');
      assert.equal(data.size, 200);
      assert.equal(data.price, 0.4);
      assert.equal(data.signal_id, fill.txHash);
      const events = (await get(a, '/api/sdk/reactor/events?limit=50').expect(200)).body.events;
      assert.deepEqual(events, [data]);
      assert.deepEqual(await streamEntries(outsider.agent_id, since), []);
    });

    it('when the whale was the maker of a fill, then its signal goes only to caps=maker and is deleted by its colon id; an unknown id answers 404 with a fix', async () => {
      const whale = wallet();
      const m = await importedMarket();
      const agent = await watcher([whale]);
      const fill = await storeFill(m, {
        wallet: whale,
        leg: 'maker',
        action: 'sell',
        outcome: 'no',
        tokenId: m.no,
        price: 0.7,
      });
      await reactToFills(testContext().deps, [fill._id]);

      assert.deepEqual(await pending(agent), []);
      const [s] = await pending(agent, 'maker');
      assert.ok(s, 'the maker signal is pending for caps=maker');
      assert.equal(s.signal_id, `${fill.txHash}:maker:${fill.logIndex}:${whale}:${m.no}`);
      assert.equal(s.leg, 'maker');
      assert.equal(s.side, 'no');
      assert.equal(s.action, 'sell');
      assert.equal(s.whale.side, 'SELL');

      const del = await api().delete(`/api/sdk/reactor/pending/${s.signal_id}`).set(as(agent));
      assert.equal(del.status, 200, JSON.stringify(del.body));
      assert.deepEqual(del.body, { success: true, signal_id: s.signal_id, deleted: true });
      assert.deepEqual(await pending(agent, 'maker'), []);
      const again = await api().delete(`/api/sdk/reactor/pending/${s.signal_id}`).set(as(agent)).expect(200);
      assert.equal(again.body.deleted, false);

      const unknown = await api()
        .delete(`/api/sdk/reactor/pending/${txHash()}:maker:1:${whale}:1`)
        .set(as(agent));
      assert.equal(unknown.status, 404);
      assert.match(unknown.body.detail, /not found/);
      assert.ok(unknown.body.fix.includes('/api/sdk/reactor/pending'));
      // Another agent's signal id is unknown to this one.
      const other = await registerAgent();
      assert.equal(
        (await api().delete(`/api/sdk/reactor/pending/${s.signal_id}`).set(as(other))).status,
        404,
      );
    });

    it('when a fill is under the agent’s min_size or its watchlist entry’s, then no signal; at the size, one', async () => {
      const small = wallet();
      const picky = wallet();
      const m = await importedMarket();
      const agent = await registerAgent();
      await patchConfig(agent, {
        min_size: 100,
        watchlist: [{ wallet: small }, { wallet: picky, min_size: 500 }],
      }).expect(200);
      const fills = [
        await storeFill(m, { wallet: small, shares: 99.99 }),
        await storeFill(m, { wallet: picky, shares: 499 }),
        await storeFill(m, { wallet: small, shares: 100 }),
        await storeFill(m, { wallet: picky, shares: 500 }),
      ];
      await reactToFills(
        testContext().deps,
        fills.map((f) => f._id),
      );
      const got = await pending(agent);
      assert.deepEqual(got.map((s) => s.tx_hash).sort(), [fills[2]!.txHash, fills[3]!.txHash].sort());
    });

    it('when the daily cap runs out, then the signal that crosses it gets what is left and the next none; a withdrawn signal gives its part back', async () => {
      const whale = wallet();
      const m = await importedMarket();
      const agent = await watcher([whale], { daily_cap: 10, mirror_fraction: 0.1, max_size: 100 });
      const fills = [];
      for (let i = 0; i < 3; i++) fills.push(await storeFill(m, { wallet: whale, shares: 200, price: 0.4 }));
      for (const f of fills) await reactToFills(testContext().deps, [f._id]);

      const got = await pending(agent);
      assert.deepEqual(
        got.map((s) => [s.tx_hash, s.amount]),
        [
          [fills[0]!.txHash, 8],
          [fills[1]!.txHash, 2],
        ],
      );
      let config = (await get(agent, '/api/sdk/reactor/config').expect(200)).body;
      assert.equal(config.daily_cap_used, 10);
      // A sell spends no cap.
      const sell = await storeFill(m, { wallet: whale, action: 'sell', shares: 100, price: 0.5 });
      await reactToFills(testContext().deps, [sell._id]);
      assert.equal((await pending(agent)).find((s) => s.tx_hash === sell.txHash)?.amount, 5);

      await testContext().deps.models.VenueFill.updateOne(
        { _id: fills[0]!._id },
        { $set: { withdrawnAt: new Date() } },
      );
      await withdrawSignalsOfFills(testContext().deps, [fills[0]!._id]);
      await withdrawSignalsOfFills(testContext().deps, [fills[0]!._id]);
      config = (await get(agent, '/api/sdk/reactor/config').expect(200)).body;
      assert.equal(config.daily_cap_used, 2);
      assert.deepEqual(
        (await pending(agent)).map((s) => s.tx_hash),
        [fills[1]!.txHash, sell.txHash],
      );
    });

    it('when the same job runs twice, then one signal and one stream entry; when a run died between publishing and flagging, or before publishing, the retry publishes exactly once', async () => {
      const whale = wallet();
      const m = await importedMarket();
      const agent = await watcher([whale]);
      const since = Date.now() - 1000;
      const { deps } = testContext();
      const fill = await storeFill(m, { wallet: whale });
      await reactToFills(deps, [fill._id]);
      await reactToFills(deps, [fill._id]);
      assert.equal((await pending(agent)).length, 1);
      assert.equal((await streamEntries(agent.agent_id, since)).length, 1);

      // Died after publishing, before flagging: the retry finds its entry on the stream.
      const id = `${agent.agent_id}|${fill.txHash}`;
      await deps.models.ReactorSignal.updateOne({ _id: id }, { $set: { publishedAt: null } });
      await reactToFills(deps, [fill._id]);
      assert.equal((await streamEntries(agent.agent_id, since)).length, 1);
      assert.ok((await deps.models.ReactorSignal.findById(id).lean())?.publishedAt);

      // Died after writing the signal, before publishing: the retry publishes it, once.
      const [entry] = await streamEntries(agent.agent_id, since);
      await deps.redis.xdel(reactorStreamKey(deps.env.QUEUE_PREFIX), entry!.id);
      await deps.models.ReactorSignal.updateOne({ _id: id }, { $set: { publishedAt: null } });
      await reactToFills(deps, [fill._id]);
      await reactToFills(deps, [fill._id]);
      const after = await streamEntries(agent.agent_id, since);
      assert.equal(after.length, 1);
      assert.notEqual(after[0]!.id, entry!.id);
      assert.equal((await pending(agent)).length, 1);
    });

    it('when a reorg withdraws a fill, then its signal leaves pending and the events, and the stream says so once', async () => {
      const whale = wallet();
      const m = await importedMarket();
      const agent = await watcher([whale]);
      const since = Date.now() - 1000;
      const { deps } = testContext();
      const [kept, dropped] = [await storeFill(m, { wallet: whale }), await storeFill(m, { wallet: whale })];
      await reactToFills(deps, [kept._id, dropped._id]);
      assert.equal((await pending(agent)).length, 2);

      await deps.models.VenueFill.updateOne({ _id: dropped._id }, { $set: { withdrawnAt: new Date() } });
      await deps.queues.enqueue('withdraw-fills', { fillIds: [dropped._id] });
      await jobCompleted('withdraw-fills', { fillIds: [dropped._id] });
      await withdrawSignalsOfFills(deps, [dropped._id]);
      assert.deepEqual(
        (await pending(agent)).map((s) => s.tx_hash),
        [kept.txHash],
      );
      const events = (await get(agent, '/api/sdk/reactor/events').expect(200)).body.events;
      assert.deepEqual(
        events.map((e: { tx_hash: string }) => e.tx_hash),
        [kept.txHash],
      );
      const entries = await streamEntries(agent.agent_id, since);
      assert.deepEqual(
        entries.map((e) => [e.event, e.data.signal_id]).sort(),
        [
          ['reactor_event', dropped.txHash],
          ['reactor_event', kept.txHash],
          ['reactor_withdrawn', dropped.txHash],
        ].sort(),
      );
      // A withdrawn fill read again by a replayed react job makes no signal again.
      await reactToFills(deps, [dropped._id]);
      assert.equal((await pending(agent)).length, 1);
    });

    it('when the react-to-fills job runs on the workers, then the signal is pending and the agent’s webhook gets reactor.signal', async () => {
      const rx = await webhookReceiver();
      try {
        const whale = wallet();
        const m = await importedMarket();
        const agent = await watcher([whale]);
        await api()
          .post('/api/sdk/webhooks')
          .set(as(agent))
          .send({ url: rx.url, events: ['reactor.signal'] })
          .expect(200);
        const fill = await storeFill(m, { wallet: whale });
        await testContext().deps.queues.enqueue('react-to-fills', { fillIds: [fill._id] });
        await jobCompleted('react-to-fills', { fillIds: [fill._id] });
        assert.equal((await pending(agent)).length, 1);
        const delivered = await until(
          async () => rx.got,
          (g) => g.length > 0,
        );
        assert.equal(delivered.length, 1);
        assert.equal(delivered[0]!.type, 'reactor.signal');
        assert.equal(delivered[0]!.data.signal_id, fill.txHash);
        assert.equal(delivered[0]!.data.agent_id, agent.agent_id);
        assert.equal(delivered[0]!.data.amount, 8);
      } finally {
        await rx.close();
      }
    });

    it('when a watched wallet trades a market nobody imported, then it is imported from the venue on the spot and the signal names it', async () => {
      const event = await newPolymarketEvent(['Yes', 'No'], [0.55]);
      const venueMarket = event.markets[0]!;
      const { deps } = testContext();
      assert.equal(
        await deps.models.Market.findById(importedMarketId('polymarket', venueMarket.condition_id)).lean(),
        null,
      );
      const whale = wallet();
      const agent = await watcher([whale]);
      const fill = await storeFill(
        {
          conditionId: venueMarket.condition_id,
          yes: venueMarket.token_ids[0]!,
          no: venueMarket.token_ids[1]!,
          slug: venueMarket.slug,
        },
        { wallet: whale, price: 0.55 },
      );
      await reactToFills(deps, [fill._id]);
      const [s] = await pending(agent);
      const id = importedMarketId('polymarket', venueMarket.condition_id);
      assert.equal(s?.market_id, id);
      const stored = await deps.models.Market.findById(id).lean();
      assert.equal(stored?.venueRef?.externalId, venueMarket.condition_id);
      const res = await get(agent, `/api/sdk/markets/${id}`).expect(200);
      assert.equal(res.body.market.polymarket_id, venueMarket.condition_id);
    });
  });

  describe('reactions', () => {
    it('when reactions are posted, then they read back newest first, limited; a decision not known answers 422', async () => {
      const agent = await registerAgent();
      const post = (body: Record<string, unknown>) =>
        api().post('/api/sdk/reactor/reactions').set(as(agent)).send(body);
      const tx = txHash();
      for (const decision of ['failed', 'skipped', 'mirrored', 'executed']) {
        const res = await post({
          event_tx_hash: tx,
          taker_wallet: wallet(),
          taker_side: 'BUY',
          taker_token: '123',
          taker_price: 0.4,
          taker_size: 200,
          condition_id: null,
          market_title: 'Will the test pass?',
          market_slug: null,
          outcome: 'Yes',
          decision,
          trade_id: decision === 'mirrored' ? randomUUID() : null,
          reason: decision === 'failed' ? 'trade_rejected: no' : null,
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.reaction.decision, decision);
      }
      const res = await get(agent, '/api/sdk/reactor/reactions?limit=3').expect(200);
      assert.deepEqual(
        res.body.reactions.map((r: { decision: string }) => r.decision),
        ['executed', 'mirrored', 'skipped'],
      );
      assert.equal(res.body.reactions[2].event_tx_hash, tx);
      const bad = await post({ decision: 'maybe' });
      assert.equal(bad.status, 422);
      assert.ok(bad.body.fix);
      // Another agent's journal is its own.
      const other = await registerAgent();
      assert.deepEqual((await get(other, '/api/sdk/reactor/reactions').expect(200)).body.reactions, []);
    });
  });
});
