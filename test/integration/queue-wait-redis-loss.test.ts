import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { startRedisServer, type EmbeddedServer } from '../../shared/infra/embedded/redis-server.js';
import { createLogger } from '../../shared/infra/logger.js';
import { QueueClient } from '../../shared/infra/queue/queue-client.js';
import { connectRedis, type RedisClient } from '../../shared/infra/redis.js';

/**
 * Found by the chaos run (npm run chaos): `npm start` died of an unhandled rejection
 * (MaxRetriesPerRequestError) when its Redis was SIGKILLed while trades waited on their jobs. BullMQ's
 * job.waitUntilFinished looks at the job from inside an async Promise executor, so a Redis error at
 * that look rejects a promise nobody holds, and Node ends the process: API, workers and scheduler.
 */
describe('request-reply over the queue when Redis dies #integration', function () {
  this.timeout(60_000);
  let dir: string;
  let server: EmbeddedServer;
  let producer: RedisClient;
  let client: QueueClient;
  const unhandled: unknown[] = [];
  let mochaListeners: NodeJS.UnhandledRejectionListener[] = [];
  const capture = (reason: unknown) => void unhandled.push(reason);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ats-queue-wait-'));
    server = await startRedisServer({ dir, persistent: false, log: createLogger('silent', 'test') });
    producer = await connectRedis({ redisUrl: server.url }, 'fail-fast', 'producer');
    producer.on('error', () => undefined);
    client = new QueueClient(producer, 'redis-loss', { redisUrl: server.url });
    // Mocha turns an unhandled rejection into a failure of whatever runs; this test counts them.
    mochaListeners = process.listeners('unhandledRejection');
    process.removeAllListeners('unhandledRejection');
    process.on('unhandledRejection', capture);
  });

  after(async () => {
    process.off('unhandledRejection', capture);
    for (const l of mochaListeners) process.on('unhandledRejection', l);
    // Back on its port, so that the client's connections close instead of reconnecting forever.
    const log = createLogger('silent', 'test');
    server = await startRedisServer({ dir, persistent: false, log, port: Number(new URL(server.url).port) });
    // The events listener's close can hang on its reconnected blocking read: bounded.
    await Promise.race([client.close(), new Promise((r) => setTimeout(r, 3000))]);
    producer.disconnect();
    await server.child.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when Redis is SIGKILLed right after a job is added, then the wait ends with an outcome and nothing rejects unhandled', async () => {
    // The job is added, then Redis dies before the wait's first look at it (as in the chaos run).
    const queue = client.queues.system;
    const add = queue.add.bind(queue);
    queue.add = (async (...args: Parameters<typeof add>) => {
      const job = await add(...args);
      server.child.process.kill('SIGKILL');
      await new Promise((r) => server.child.process.once('exit', r));
      return job;
    }) as typeof queue.add;

    const outcome = await client.enqueueAndWait('ping', { nonce: 'redis-loss' }, 2000);
    await new Promise((r) => setTimeout(r, 200));

    assert.deepEqual(
      unhandled.map(String),
      [],
      'no rejection is left unhandled (Node would end the process)',
    );
    assert.equal(outcome.state, 'pending', 'the job was added: its outcome is unknown, not failed');
  });
});
