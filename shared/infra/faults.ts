/**
 * Fault injection for crash tests: with FAULT_KILL_AFTER_WRITES=N (never in production; config
 * refuses it there) the process kills itself with SIGKILL right after its N-th database write on a
 * money path that changed something (a replayed, guarded no-op does not count, so a restarted
 * process always makes progress before it is killed again). Every such write calls `afterWrite()`, so a test can stop a worker between any two
 * consecutive writes of a trade and check that the retry applies it exactly once.
 */
let remaining: number | null = null;

export function armFaults(killAfterWrites: number | undefined): void {
  remaining = killAfterWrites ?? null;
}

/** Call after each write; `changed` is false for a guarded write that matched nothing (a replayed step). */
export function afterWrite(changed = true): void {
  if (remaining === null || !changed) return;
  remaining -= 1;
  if (remaining <= 0) process.kill(process.pid, 'SIGKILL');
}
