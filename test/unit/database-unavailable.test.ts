import assert from 'node:assert/strict';
import mongoose from 'mongoose';
import { isDatabaseUnavailable } from '../../shared/infra/database-unavailable.js';

const {
  MongoBulkWriteError,
  MongoClientClosedError,
  MongoNetworkError,
  MongoServerError,
  MongoServerSelectionError,
} = mongoose.mongo;

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

  it('when a bulk write could not reach the server, then it is an outage (the driver wraps its own error in a MongoBulkWriteError)', () => {
    // What bulkWrite/insertMany throw with the database down (seen in a chaos run: the claim of a
    // batch of trades spent all its job's attempts instead of waiting for the database).
    const cutOff = new MongoBulkWriteError(
      new MongoServerSelectionError('connect ECONNREFUSED 127.0.0.1:1', { error: undefined } as never),
      {} as never,
    );
    assert.equal(isDatabaseUnavailable(cutOff), true);
    const refused = new MongoBulkWriteError({ message: 'E11000 duplicate key', code: 11000 }, {} as never);
    assert.equal(isDatabaseUnavailable(refused), false);
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

  it('when an operation is cut off because its client was closed under it (the watchdog replacing the client), then it is an outage', () => {
    // Seen in a chaos run: requests in flight on the replaced client answered 500 instead of 503.
    assert.equal(isDatabaseUnavailable(new MongoClientClosedError()), true);
  });

  it('when the server refused the command itself, then it is not an outage', () => {
    const duplicate = new MongoServerError({ code: 11000, codeName: 'DuplicateKey', errmsg: 'E11000' });
    assert.equal(isDatabaseUnavailable(duplicate), false);
    assert.equal(isDatabaseUnavailable(new Error('boom')), false);
    assert.equal(isDatabaseUnavailable('text'), false);
  });
});
