import assert from 'node:assert/strict';
import mongoose from 'mongoose';
import { isDatabaseUnavailable } from '../../shared/infra/database-unavailable.js';

const { MongoNetworkError, MongoServerError, MongoServerSelectionError } = mongoose.mongo;

describe('isDatabaseUnavailable: which database errors are a 503 #unit', () => {
  it('when the server is unreachable or went away mid-command, then it is an outage (also as a cause)', () => {
    assert.equal(isDatabaseUnavailable(new MongoNetworkError('connect ECONNREFUSED 127.0.0.1:1')), true);
    assert.equal(
      isDatabaseUnavailable(
        new MongoServerSelectionError('Server selection timed out', { error: undefined } as never),
      ),
      true,
    );
    const wrapped = new Error('loading the agent failed', { cause: new MongoNetworkError('socket closed') });
    assert.equal(isDatabaseUnavailable(wrapped), true);
  });

  it('when a replica set has no writable primary for a moment (election, step-down, shutdown), then it is an outage', () => {
    for (const [code, codeName] of [
      [10107, 'NotWritablePrimary'],
      [13435, 'NotPrimaryNoSecondaryOk'],
      [189, 'PrimarySteppedDown'],
      [11602, 'InterruptedDueToReplStateChange'],
      [91, 'ShutdownInProgress'],
      [11600, 'InterruptedAtShutdown'],
    ] as const) {
      assert.equal(
        isDatabaseUnavailable(new MongoServerError({ code, codeName, errmsg: codeName })),
        true,
        codeName,
      );
    }
  });

  it('when the server refused the command itself, then it is not an outage', () => {
    const duplicate = new MongoServerError({ code: 11000, codeName: 'DuplicateKey', errmsg: 'E11000' });
    assert.equal(isDatabaseUnavailable(duplicate), false);
    assert.equal(isDatabaseUnavailable(new Error('boom')), false);
    assert.equal(isDatabaseUnavailable('text'), false);
  });
});
