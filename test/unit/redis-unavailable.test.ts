import assert from 'node:assert/strict';
import { isRedisUnavailable } from '../../shared/infra/redis-unavailable.js';
import { unavailable } from '../../shared/infra/errors.js';

const replyError = (message: string) => Object.assign(new Error(message), { name: 'ReplyError' });

describe('which Redis errors are an outage (503), not a bug (500) #unit', () => {
  it('when ioredis has no connection, or a restarted server is still loading, then it is an outage', () => {
    for (const err of [
      new Error('Connection is closed.'),
      new Error("Stream isn't writeable and enableOfflineQueue options is false"),
      Object.assign(new Error('Reached the max retries per request limit'), {
        name: 'MaxRetriesPerRequestError',
      }),
      replyError('LOADING Redis is loading the dataset in memory'),
      new Error('wrapped', { cause: new Error('Connection is closed.') }),
    ])
      assert.equal(isRedisUnavailable(err), true, err.message);
  });

  it('when Redis refused a command, or the error is not Redis’s, then it is not', () => {
    for (const err of [
      replyError('WRONGTYPE Operation against a key holding the wrong kind of value'),
      replyError('ERR unknown command'),
      new Error('something else'),
      'a string',
    ])
      assert.equal(isRedisUnavailable(err), false, String(err));
  });

  it('when a part of ours is down (the queue, the rate limiter), then its 503 is retryable and carries Retry-After', () => {
    const err = unavailable('The job queue', new Error('Connection is closed.'));
    assert.equal(err.status, 503);
    assert.equal(err.code, 'service_unavailable');
    assert.equal(err.retryable, true);
    assert.equal(err.options.headers?.['Retry-After'], '2');
  });
});
