import type { Logger } from '../logger.js';
import type { EmbeddedServer } from './redis-server.js';

const killQuietly = (pid: number) => {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    // Gone already.
  }
};

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
  stop(): Promise<void>;
}

/**
 * Starts a server and restarts it whenever it exits on its own, on the same port (and the same data
 * directory, which `start` closes over), after a backoff. A server that exits `maxFailures` times
 * within the window is left down: restarting it again would only hide a broken machine, so the
 * circuit opens and the process reports itself not live (GET /healthz/live), for an orchestrator to
 * restart the whole service.
 */
export async function superviseServer(opts: {
  name: string;
  /**
   * Starts the server; on a restart with the port it had. Calls `spawned` with the new process's pid
   * as soon as it runs, and resolves once it answers.
   */
  start: (port: number | undefined, spawned: (pid: number) => void) => Promise<EmbeddedServer>;
  policy: RestartPolicy;
  log: Logger;
  /** A new process runs (e.g. to record its pid). */
  onRestarted?: () => void;
  clock?: () => number;
}): Promise<SupervisedServer> {
  const { name, policy, log } = opts;
  const clock = opts.clock ?? Date.now;
  // A restart's process from its spawn until it answers: a stop in between ends it at once rather
  // than waiting out a JVM start (and a service killed meanwhile has it in its lock file).
  let starting: number | undefined;
  const spawned = (pid: number) => (starting = pid);
  let current = await opts.start(undefined, () => undefined);
  const port = Number(new URL(current.url).port);
  let stopping = false;
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
        `${name} keeps exiting: not restarting it again; GET /healthz/live now fails so that the service is restarted`,
      );
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
    } finally {
      starting = undefined;
    }
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
      if (starting !== undefined) killQuietly(starting);
      await restarting;
      await current.child.stop();
    },
  };
}
