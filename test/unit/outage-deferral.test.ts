import assert from 'node:assert/strict';
import mongoose from 'mongoose';
import type { Job } from 'bullmq';
import {
  OUTAGE_FIRST_DELAY_MS,
  OUTAGE_MAX_DEFERRALS,
  outageDeferralMs,
} from '../../shared/composition/outage-deferral.js';

const jobAfter = (deferrals: number, failed = 0, stalled = 0) =>
  ({
    attemptsStarted: deferrals + failed + stalled + 1,
    attemptsMade: failed,
    stalledCounter: stalled,
  }) as Job;
const outage = new mongoose.mongo.MongoNetworkError('connection closed');

describe('outage deferral of jobs #unit', () => {
  it('when the stores are unreachable, then the wait doubles from the first delay up to 10 s', () => {
    const waits = [0, 1, 2, 3, 5, 6, 10].map((n) => outageDeferralMs(jobAfter(n), outage));
    assert.deepEqual(waits, [250, 500, 1000, 2000, 8000, 10_000, 10_000]);
    assert.equal(outageDeferralMs(jobAfter(0), outage), OUTAGE_FIRST_DELAY_MS);
  });

  it('when failed attempts or stalls are among the starts, then they are not counted as deferrals', () => {
    assert.equal(outageDeferralMs(jobAfter(1, 2, 1), outage), 500);
  });

  it('when the job waited out outages long enough, or the error is its own, then it is not deferred', () => {
    assert.equal(outageDeferralMs(jobAfter(OUTAGE_MAX_DEFERRALS), outage), null);
    assert.equal(outageDeferralMs(jobAfter(0), new Error('a bug')), null);
  });
});
