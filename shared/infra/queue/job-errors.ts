/**
 * How a job's work failed, said by the code that knows, in the job's terms rather than HTTP's: the
 * worker pool turns each kind into BullMQ's control flow (composition/worker-pool.ts), and an API
 * that meets one answers it with a status of its own choosing (api/http/error-handler.ts).
 * - `retry-later`: the work is not ready yet (a claim or a write that did not take); the job's next
 *   attempt, after its backoff, does it.
 * - `never-retry`: the job cannot succeed however often it runs (what it names does not exist, or
 *   the record it reads is broken): it fails for good (BullMQ's UnrecoverableError).
 * - `venue-outage`: the venue has not taken or confirmed the work yet; the job's next attempt, after
 *   its backoff, asks again (with the same order, so nothing is placed twice).
 */
export type JobFailureKind = 'retry-later' | 'never-retry' | 'venue-outage';

export abstract class JobControlError extends Error {
  abstract readonly kind: JobFailureKind;

  constructor(
    /** Stable machine-readable code, e.g. `trade_not_claimed` (what logs and tests match on). */
    readonly code: string,
    message: string,
    /** What happens next or what to do about it, in one sentence. */
    readonly fix: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The work is not ready yet: the job's next attempt does it. */
export class RetryLater extends JobControlError {
  readonly kind = 'retry-later';
}

/** The job cannot succeed: it fails for good. `missing`: what it names does not exist. */
export class NeverRetry extends JobControlError {
  readonly kind = 'never-retry';

  constructor(
    code: string,
    message: string,
    fix: string,
    readonly options: { missing?: boolean } = {},
  ) {
    super(code, message, fix);
  }
}

/** The venue has not taken or confirmed the work yet: the job asks again on its next attempt. */
export class VenueOutage extends JobControlError {
  readonly kind = 'venue-outage';
}
