// CPU time the bench's stack spends, by kind of process, from /proc (Linux): what a trade costs the
// service, the database and Redis, which is what predicts how many of each a load needs
// (docs/scaling.md). The load generator (this process) is left out.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The kinds a stack's processes are counted under. */
export type ProcessKind = 'service' | 'database' | 'redis';

const KIND_BY_COMMAND: Record<string, ProcessKind> = {
  node: 'service',
  java: 'database',
  mongod: 'database',
  'redis-server': 'redis',
};

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** This process's descendants (the stack it started: service processes and the servers), by kind. */
function stackProcesses(): { pid: number; kind: ProcessKind }[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,comm='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .map(([pid, ppid, comm]) => ({ pid: Number(pid), ppid: Number(ppid), comm: comm ?? '' }));
  const inTree = new Set([process.pid]);
  // Parents come before children in ps's pid order only by chance: grow the set until it stops.
  for (let grew = true; grew;) {
    grew = false;
    for (const r of rows)
      if (!inTree.has(r.pid) && inTree.has(r.ppid)) {
        inTree.add(r.pid);
        grew = true;
      }
  }
  return rows
    .filter((r) => r.pid !== process.pid && inTree.has(r.pid) && KIND_BY_COMMAND[r.comm])
    .map((r) => ({ pid: r.pid, kind: KIND_BY_COMMAND[r.comm]! }));
}

/** User + system CPU seconds of one process so far, or null once it is gone. */
export function cpuSeconds(pid: number): number | null {
  try {
    // Fields after the command (which may hold spaces, so split after its closing parenthesis).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/**
 * Runs `load` and returns its result with the CPU seconds each kind of the stack's processes spent
 * meanwhile (processes alive at both ends; a child restarted in between is not counted).
 */
export async function withStackCpu<T>(
  load: () => Promise<T>,
): Promise<{ result: T; cpuSeconds: Partial<Record<ProcessKind, number>> }> {
  const procs = stackProcesses();
  const before = new Map(procs.map((p) => [p.pid, cpuSeconds(p.pid)]));
  const result = await load();
  const spent: Partial<Record<ProcessKind, number>> = {};
  for (const p of procs) {
    const start = before.get(p.pid);
    const end = cpuSeconds(p.pid);
    if (start == null || end == null) continue;
    spent[p.kind] = (spent[p.kind] ?? 0) + (end - start);
  }
  return { result, cpuSeconds: spent };
}

/** Resident set size of one process now (bytes, /proc/<pid>/status VmRSS), or null once it is gone. */
export function rssBytes(pid: number): number | null {
  try {
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? null : Number(kb) * 1024;
  } catch {
    return null;
  }
}
