import assert from 'node:assert/strict';
import mongoose, { type Connection } from 'mongoose';
import { connectMongo, pingMongo, watchMongo } from '../../shared/infra/mongo.js';
import { testContext } from '../support/context.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const unreachable = () => new mongoose.mongo.MongoServerSelectionError('connect ECONNREFUSED', {} as never);

/**
 * Found by a chaos run: after a database kill and restart, the API's driver monitor never settled
 * its heartbeat, its server stayed Unknown and every command failed for 11 minutes, while the
 * workers' clients reached the same database. The watchdog tells that apart from a database that is
 * down, by asking a fresh client, and rebuilds the stuck one. A wedged monitor cannot be caused on
 * demand, so these tests stand in for this client's failing pings.
 */
describe('database client watchdog #integration', () => {
  let conn: Connection;
  const logged: string[] = [];
  const log = {
    warn: (_: object, m: string) => logged.push(m),
    error: (_: object, m: string) => logged.push(m),
  };
  beforeEach(async () => {
    logged.length = 0;
    conn = await connectMongo(testContext().mongoUri, 'watchdog_test', 750);
  });
  afterEach(async () => {
    await conn.close();
  });

  it('when this client keeps failing while a fresh client reaches the database, then it is reconnected and its models work again', async () => {
    const Doc = conn.model('WatchdogDoc', new mongoose.Schema({ _id: String, n: Number }));
    await Doc.create({ _id: 'a', n: 1 });
    let opened = 0;
    conn.getClient().on('topologyOpening', () => opened++);
    let failing = 3;
    const stop = watchMongo(conn, testContext().mongoUri, log, {
      intervalMs: 20,
      ping: async (c) => {
        if (failing-- > 0) throw unreachable();
        return pingMongo(c);
      },
    });
    for (let i = 0; i < 100 && !logged.length; i++) await sleep(20);
    stop();
    assert.deepEqual(logged, [
      'the database answers a fresh client but not this one: reconnecting the database client',
    ]);
    assert.equal(opened, 1, 'a new topology, with its own monitor');
    assert.equal((await Doc.findById('a').lean())?.n, 1);
  });

  it('when the database is unreachable for a fresh client too, then this client is left alone', async () => {
    let opened = 0;
    conn.getClient().on('topologyOpening', () => opened++);
    let probes = 0;
    const stop = watchMongo(conn, testContext().mongoUri, log, {
      intervalMs: 20,
      ping: async () => {
        throw unreachable();
      },
      probe: async () => {
        probes++;
        return false;
      },
    });
    for (let i = 0; i < 100 && probes < 3; i++) await sleep(20);
    stop();
    assert.ok(probes >= 3, `${probes} probes`);
    assert.deepEqual(logged, []);
    assert.equal(opened, 0);
  });
});
