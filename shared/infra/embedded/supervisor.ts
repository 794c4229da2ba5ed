import type { Logger } from '../logger.js';
import type { ManagedChild } from './child-process.js';
import type { EmbeddedServer } from './redis-server.js';

/** When to stop restarting a server that keeps dying. */
export interface RestartPolicy {
  /** Exits within `windowMs` that open the circuit (the last one is not restarted). */
  maxFailures: number;
  windowMs: number;
}

const FIRST_RESTART_DELAY_MS = 250;
const MAX_RESTART_DELAY_MS = 10_000;

/** Exponential backoff over the exits in the current window: 250 ms, 500 ms, 1 s, … at most 10 s. */
export function restartDelayMs(recentExits: number): number {
  return Math.min(FIRST_RESTART_DELAY_MS * 2 ** Math.max(0, recentExits - 1), MAX_RESTART_DELAY_MS);
}

/** An embedded server kept running by `superviseServer`. */
export interface SupervisedServer {
  readonly name: string;
  /** Stays the same across restarts (same port), so clients reconnect to it by themselves. */
  readonly url: string;
  /** The pid of the process running now (it changes with each restart). */
  pid(): number;
  /** True once the circuit opened: the server stays down until the whole service is restarted. */
  gaveUp(): boolean;
  /** Ends every process this supervisor started that still runs (a restart's too) and waits for them. */
  stop(): Promise<void>;
}

/**
 * Starts a server and restarts it whenever it exits on its own, on the same port (and the same data
 * directory, which `start` closes over), after a backoff. A server that exits `maxFailures` times
 * within the window is left down: restarting it again would only hide a broken machine, so the
 * circuit opens, `onGaveUp` is told (the process then exits non-zero, run-process.ts) and until then
 * the process reports itself not live (GET /healthz/live), for an orchestrator to restart the whole
 * service.
 */
export async function superviseServer(opts: {
  name: string;
  /**
   * Starts the server; on a restart with the port it had. Calls `spawned` with the new process as
   * soon as it runs, and resolves once it answers.
   */
  start: (port: number | undefined, spawned: (child: ManagedChild) => void) => Promise<EmbeddedServer>;
  policy: RestartPolicy;
  log: Logger;
  /** A new process runs (e.g. to record its pid). */
  onRestarted?: () => void;
  /** The circuit opened (after it was logged): the server stays down. */
  onGaveUp?: () => void;
  clock?: () => number;
}): Promise<SupervisedServer> {
  const { name, policy, log } = opts;
  const clock = opts.clock ?? Date.now;
  let stopping = false;
  // Every process started here that has not exited, from its spawn on: the one serving, and a
  // restart's that does not answer yet (a JVM takes seconds). stop() ends them all, so none outlives
  // the service, whenever the stop comes.
  const live = new Set<ManagedChild>();
  const tracked = new WeakSet<ManagedChild>();
  const track = (child: ManagedChild) => {
    if (tracked.has(child)) return;
    tracked.add(child);
    if (child.process.exitCode !== null || child.process.signalCode !== null) return;
    live.add(child);
    child.process.once('exit', () => live.delete(child));
  };
  const spawned = (child: ManagedChild) => {
    track(child);
    // Spawned by a restart that was already under way when the stop came.
    if (stopping) void child.stop();
  };
  let current = await opts.start(undefined, spawned);
  track(current.child);
  const port = Number(new URL(current.url).port);
  let circuitOpen = false;
  let exits: number[] = [];
  let pendingRestart: NodeJS.Timeout | undefined;
  let restarting: Promise<void> | undefined;

  const exited = (why: Record<string, unknown>) => {
    const now = clock();
    exits = [...exits.filter((t) => now - t < policy.windowMs), now];
    if (exits.length >= policy.maxFailures) {
      circuitOpen = true;
      log.error(
        { ...why, exits: exits.length, windowMs: policy.windowMs },
        `${name} keeps exiting: not restarting it again; the service exits so that it is restarted`,
      );
      opts.onGaveUp?.();
      return;
    }
    const delayMs = restartDelayMs(exits.length);
    log.warn({ ...why, exits: exits.length, delayMs }, `${name} exited; restarting it on port ${port}`);
    pendingRestart = setTimeout(() => {
      pendingRestart = undefined;
      restarting = restart().finally(() => (restarting = undefined));
    }, delayMs);
  };

  const watch = (server: EmbeddedServer) =>
    server.child.process.once('exit', (code, signal) => {
      if (!stopping && server === current) exited({ code, signal });
    });

  const restart = async () => {
    if (stopping) return;
    let next: EmbeddedServer;
    try {
      next = await opts.start(port, spawned);
    } catch (err) {
      if (stopping) return;
      exited({ err: err instanceof Error ? err.message : String(err) });
      return;
    }
    track(next.child);
    if (stopping) {
      await next.child.stop();
      return;
    }
    current = next;
    watch(next);
    log.warn({ pid: next.child.process.pid }, `${name} restarted at ${next.url}`);
    opts.onRestarted?.();
  };

  watch(current);
  return {
    name,
    url: current.url,
    pid: () => current.child.process.pid ?? 0,
    gaveUp: () => circuitOpen,
    async stop() {
      stopping = true;
      clearTimeout(pendingRestart);
      // A restart under way ends at once: its process is stopped here (or at its spawn, above), so
      // its wait for an answer fails and nothing awaits a JVM start.
      while (live.size > 0 || restarting) {
        await Promise.all(
          [...live].map(async (child) => {
            await child.stop();
            live.delete(child); // also one that never ran (a spawn error has no exit)
          }),
        );
        await restarting;
      }
    },
  };
}
