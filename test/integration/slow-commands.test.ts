import assert from 'node:assert/strict';
import mongoose from 'mongoose';
import { connectMongo, logSlowCommands } from '../../shared/infra/mongo.js';
import type { Logger } from '../../shared/infra/logger.js';
import { testContext } from '../support/context.js';

describe('slow database command log (MONGODB_SLOW_COMMAND_MS) #integration', () => {
  it('when commands reach the threshold, then each is logged with its collection and the fields it selects by, never their values', async () => {
    const logged: { fields: Record<string, unknown>; msg: string }[] = [];
    const log = {
      info: () => undefined,
      warn: (fields: object, msg?: string) => {
        logged.push({ fields: fields as Record<string, unknown>, msg: msg ?? '' });
      },
    } as unknown as Pick<Logger, 'info' | 'warn'>;
    // Threshold 0 logs every command: the driver times them in whole milliseconds, so any positive
    // threshold would leave out the fast ones (a CI run lost an update that took 0 ms).
    const conn = await mongoose
      .createConnection(testContext().mongoUri, { dbName: 'slow_commands_test', monitorCommands: true })
      .asPromise();
    logSlowCommands(conn, 0, log);
    try {
      const secret = 'sk_live_do-not-log-me';
      const docs = conn.db!.collection('slow_docs');
      await docs.insertOne({ apiKeyHash: secret, n: 1 });
      await docs.find({ apiKeyHash: secret, n: { $gt: 0 } }).toArray();
      await docs.aggregate([{ $match: { apiKeyHash: secret } }, { $count: 'n' }]).toArray();
      await docs.updateOne({ apiKeyHash: secret }, { $set: { n: 2 } });
      const ours = logged.filter((l) => l.fields.collection === 'slow_docs');
      assert.deepEqual(
        ours.map((l) => [l.fields.command, l.fields.selects]),
        [
          ['insert', []],
          ['find', ['apiKeyHash', 'n']],
          ['aggregate', ['apiKeyHash']],
          ['update', ['apiKeyHash']],
        ],
      );
      for (const l of ours) {
        assert.equal(l.msg, 'slow database command');
        assert.equal(typeof l.fields.durationMs, 'number');
        assert.equal(l.fields.failed, false);
      }
      assert.ok(!JSON.stringify(logged).includes(secret), 'no value is logged');
    } finally {
      await conn.close();
    }
  });

  /** How many commands a service connection with `slowCommandMs` reports for one find. */
  async function reportedCommands(slowCommandMs: number, uriOptions = ''): Promise<number> {
    const quiet = { info: () => undefined, warn: () => undefined } as unknown as Pick<
      Logger,
      'info' | 'warn'
    >;
    const uri = testContext().mongoUri + uriOptions;
    const conn = await connectMongo(uri, 'slow_commands_test', 750, quiet, slowCommandMs);
    try {
      let seen = 0;
      conn.getClient().on('commandStarted', () => seen++);
      await conn.db!.collection('slow_docs').findOne({});
      return seen;
    } finally {
      await conn.close();
    }
  }

  it('when the threshold is 0, then the driver does not report commands at all', async () => {
    assert.equal(await reportedCommands(0), 0);
  });

  it('when MONGODB_SLOW_COMMAND_MS is set, then the service connection reports its commands', async () => {
    assert.ok((await reportedCommands(1)) >= 1);
  });

  it('when the URI asks for monitorCommands and no threshold is set, then the driver still reports commands (the bench counts them so)', async () => {
    assert.ok((await reportedCommands(0, '/?monitorCommands=true')) >= 1);
  });
});
