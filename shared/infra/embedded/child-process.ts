import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import type { Logger } from '../logger.js';
import { PRIVATE_UMASK } from '../private-files.js';

/** Whether a process with this pid exists (signal 0 checks without signalling). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A port the OS says is free right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface ManagedChild {
  readonly name: string;
  readonly process: ChildProcess;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. */
  stop(graceMs?: number): Promise<void>;
}

let pdeathsigAvailable: boolean | undefined;

/**
 * `setpriv --pdeathsig TERM` (util-linux, on every Debian and in our image) asks the kernel to
 * SIGTERM the server when this process dies, however it dies: a SIGKILL, a crash, or an exit that
 * skipped the shutdown. TERM, not KILL: Redis then writes its append-only file out and the database
 * closes its files, as on a normal stop, so what they acknowledged survives the service's death.
 * A polling watchdog would leave the server up for its poll interval (and is one more process to
 * leak); the lock file's reaping at the next start remains the fallback where setpriv is missing.
 */
function dieWithParentPrefix(): string {
  pdeathsigAvailable ??=
    process.platform === 'linux' && spawnSync('sh', ['-c', 'command -v setpriv']).status === 0;
  return pdeathsigAvailable ? 'setpriv --pdeathsig TERM -- ' : '';
}

/** Signals the child's process group (it leads one: spawned detached), else the child alone. */
function signalTree(child: ChildProcess, signal: NodeJS.Signals) {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

/** Starts a server process whose output goes to the log, and which we can stop gracefully. */
export function spawnManaged(name: string, command: string, args: string[], log: Logger): ManagedChild {
  // Own process group: a terminal Ctrl-C reaches only us, and we stop the servers after our own
  // connections have closed, in order. It also dies with us (dieWithParentPrefix).
  // Through sh to set the umask (exec keeps the pid): every file the server creates in the
  // data directory is then private (0600), as is everything else there (private-files.ts).
  const umask = PRIVATE_UMASK.toString(8).padStart(3, '0');
  const exec = `exec ${dieWithParentPrefix()}"$0" "$@"`;
  const child = spawn('sh', ['-c', `umask ${umask} && ${exec}`, command, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const childLog = log.child({ child: name });
  const forward = (level: 'info' | 'warn') => (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line.trim()) childLog[level](line.trim());
  };
  child.stdout?.on('data', forward('info'));
  child.stderr?.on('data', forward('warn'));
  let exited = child.exitCode !== null;
  const exitPromise = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = true;
      childLog.info({ code, signal }, `${name} exited`);
      resolve();
    });
    child.once('error', (err) => {
      exited = true;
      childLog.error({ err }, `${name} could not start`);
      resolve();
    });
  });
  return {
    name,
    process: child,
    async stop(graceMs = 10_000) {
      if (exited) return;
      signalTree(child, 'SIGTERM');
      const timer = setTimeout(() => !exited && signalTree(child, 'SIGKILL'), graceMs);
      await exitPromise;
      clearTimeout(timer);
    },
  };
}

/**
 * Polls `probe` until it succeeds, the child exits, or the deadline passes; a child that does not
 * get there is stopped (a failed restart must not leave one behind holding the port or the files).
 */
export async function waitUntilReady(
  child: ManagedChild,
  probe: () => Promise<void>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.process.exitCode !== null || child.process.signalCode !== null) {
      throw new Error(`${child.name} exited before it was ready (code ${child.process.exitCode})`);
    }
    try {
      await probe();
      return;
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  await child.stop(2000);
  throw new Error(`${child.name} did not become ready within ${timeoutMs} ms: ${String(lastError)}`);
}
