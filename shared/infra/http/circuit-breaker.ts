/**
 * A circuit breaker for one upstream host. When a venue is down, every caller waiting out a
 * timeout (times its retries) stalls workers and piles up load on a host that is already
 * struggling; after enough consecutive failures we stop calling it for a while and fail fast.
 *
 *   closed ──N consecutive failures──▶ open ──cool-down elapsed──▶ half_open (one trial request)
 *     ▲                                  ▲                              │
 *     └──────────── trial succeeds ──────┼──────────────────────────────┤
 *                                        └──────── trial fails ─────────┘
 *
 * The open → half_open move happens lazily, when the state is next read: no timers to clean up,
 * and an injectable clock lets tests step over the cool-down instantly.
 */

export type CircuitState = 'closed' | 'open' | 'half_open';

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. Default 5. */
  failureThreshold?: number;
  /** How long the circuit stays open before one trial request is let through. Default 30 s. */
  cooldownMs?: number;
  /** Clock in ms; injectable so tests need not wait for the cool-down. Default `Date.now`. */
  now?: () => number;
  /** Called on every state change (logging, the state gauge). */
  onStateChange?: (to: CircuitState, from: CircuitState) => void;
}

/** What `tryAcquire` hands out: `trial` marks the single request let through while half-open. */
export interface CircuitPermit {
  trial: boolean;
}

export const DEFAULT_FAILURE_THRESHOLD = 5;
export const DEFAULT_COOLDOWN_MS = 30_000;

export class CircuitBreaker {
  readonly failureThreshold: number;
  readonly cooldownMs: number;
  private readonly now: () => number;
  private readonly onStateChange: ((to: CircuitState, from: CircuitState) => void) | undefined;
  private current: CircuitState = 'closed';
  private failures = 0;
  private openedAt = 0;
  private trialInFlight = false;

  constructor(options: CircuitBreakerOptions = {}) {
    this.failureThreshold = Math.max(1, options.failureThreshold ?? DEFAULT_FAILURE_THRESHOLD);
    this.cooldownMs = Math.max(0, options.cooldownMs ?? DEFAULT_COOLDOWN_MS);
    this.now = options.now ?? Date.now;
    this.onStateChange = options.onStateChange;
  }

  /** The state as of now (an open circuit whose cool-down has passed reads as half_open). */
  get state(): CircuitState {
    if (this.current === 'open' && this.now() - this.openedAt >= this.cooldownMs) {
      this.transition('half_open');
    }
    return this.current;
  }

  get consecutiveFailures(): number {
    return this.failures;
  }

  /** Epoch ms until which the circuit stays open, or null when it is not open. */
  get openUntil(): number | null {
    return this.state === 'open' ? this.openedAt + this.cooldownMs : null;
  }

  /**
   * Asks to send a request. Null means fail fast: the circuit is open, or half-open with its one
   * trial already in flight (letting more through would defeat the point of a single probe).
   */
  tryAcquire(): CircuitPermit | null {
    switch (this.state) {
      case 'closed':
        return { trial: false };
      case 'open':
        return null;
      case 'half_open':
        if (this.trialInFlight) return null;
        this.trialInFlight = true;
        return { trial: true };
    }
  }

  /** The host answered properly: close the circuit and forget earlier failures. */
  recordSuccess(): void {
    this.failures = 0;
    this.trialInFlight = false;
    if (this.current !== 'closed') this.transition('closed');
  }

  /** The host failed us (unreachable, timed out, 5xx, nonsense body). */
  recordFailure(): void {
    this.failures += 1;
    const wasTrial = this.current === 'half_open';
    this.trialInFlight = false;
    if (wasTrial || (this.current === 'closed' && this.failures >= this.failureThreshold)) {
      this.openedAt = this.now();
      this.transition('open');
    }
  }

  /**
   * A request ended with no verdict on the host (e.g. the caller aborted it). Frees the trial slot
   * so the next request can probe, without counting either way.
   */
  release(permit: CircuitPermit): void {
    if (permit.trial) this.trialInFlight = false;
  }

  private transition(to: CircuitState): void {
    const from = this.current;
    if (from === to) return;
    this.current = to;
    this.onStateChange?.(to, from);
  }
}
