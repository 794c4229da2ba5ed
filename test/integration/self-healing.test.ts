import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, isAlive } from '../../shared/infra/embedded/child-process.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';

/** The children `npm start` records in its lock file: [redis-server, MongoDB-wire server]. */
const embeddedChildren = (dataDir: string) =>
  (JSON.parse(readFileSync(join(dataDir, 'embedded.pid'), 'utf8')) as { children: number[] }).children;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether the process runs: exists and is not a zombie (dead, its exit not yet collected). */
function running(pid: number | string): boolean {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Running processes whose command line names `dir`: the service's tree on its data. */
function processesUsing(dir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmd.includes(dir) && running(pid)) found.push(`${pid}: ${cmd}`);
    } catch {
      // exited while we looked
    }
  }
  return found;
}

/** The service's JSON log lines (pino) in what it printed. */
function logLines(output: string): { msg?: string; reason?: string }[] {
  return output.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line) as { msg?: string; reason?: string }];
    } catch {
      return [];
    }
  });
}

/** Polls `probe` until it returns a value, or fails with the last thing it saw. */
async function eventually<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    await sleep(250);
  }
  throw new Error(`${what}: not within ${timeoutMs} ms (last: ${String(last)})`);
}

/** A one-dollar buy on a sim market; resolves with the HTTP status and the body. */
async function buy(base: string, key: string, marketId: string, side: 'yes' | 'no') {
  const res = await fetch(`${base}/api/sdk/trade`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ market_id: marketId, side, amount: 1 }),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, body: (await res.json()) as { success?: boolean; fill_status?: string } };
}

const filled = (r: { status: number; body: { success?: boolean; fill_status?: string } }) =>
  r.status === 200 && r.body.success === true && r.body.fill_status === 'filled';

async function stopService(service: ServiceProcess | undefined) {
  if (!service || service.proc.exitCode !== null) return;
  service.proc.kill('SIGTERM');
  // Past the service's own forced exit (2 × SHUTDOWN_TIMEOUT_MS, 30 s), which takes its embedded
  // children down with it; a SIGKILL from here would leave them running.
  await Promise.race([service.exited, sleep(40_000)]);
  if (service.proc.exitCode === null) service.proc.kill('SIGKILL');
}

describe('npm start: supervised embedded Redis and database #integration', function () {
  this.timeout(300_000);
  let dataDir: string;
  let service: ServiceProcess | undefined;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'ats-self-healing-'));
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && service)
      console.error(`service output:\n${service.output().slice(-6000)}`);
    await stopService(service);
    // Children SIGKILLed as the service exited may take a moment to end.
    for (let i = 0; i < 50 && service && processesUsing(dataDir).length > 0; i++) await sleep(100);
    const left = service ? processesUsing(dataDir) : [];
    service = undefined;
    rmSync(dataDir, { recursive: true, force: true });
    assert.deepEqual(left, [], 'the stopped service left no process on its data directory');
  });

  /** A service with a registered agent and a sim market on which a first trade filled. */
  async function tradingService() {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    service = await startServiceProcess(dataDir, port, {
      SIM_COOLDOWN_SECONDS: '0',
      FAILED_TRADE_COOLDOWN_SECONDS: '0',
    });
    const reg = await fetch(`${base}/api/sdk/agents/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"self-healing"}',
    });
    const { api_key: key } = (await reg.json()) as { api_key: string };
    const list = await fetch(`${base}/api/sdk/markets?limit=2&venue=sim`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const [marketId] = ((await list.json()) as { markets: { id: string }[] }).markets.map((m) => m.id);
    assert.ok(marketId, 'the seeded catalogue has a sim market');
    assert.ok(filled(await buy(base, key, marketId, 'yes')), 'a trade fills before anything dies');
    return { base, key, marketId };
  }

  for (const [which, index] of [
    ['Redis', 0],
    ['database', 1],
  ] as const) {
    it(`when the embedded ${which} is killed with SIGKILL, then it is restarted on its port and trades fill again`, async () => {
      const { base, key, marketId } = await tradingService();
      const pid = embeddedChildren(dataDir)[index]!;
      process.kill(pid, 'SIGKILL');
      await eventually(`a trade fills after the ${which} child was killed`, 90_000, async () =>
        filled(await buy(base, key, marketId, 'no')) ? true : undefined,
      );
      const restarted = embeddedChildren(dataDir)[index]!;
      assert.notEqual(restarted, pid, `the lock file names the restarted ${which} child`);
      assert.ok(isAlive(restarted));
      const live = await fetch(`${base}/healthz/live`);
      assert.equal(live.status, 200, 'a restart within the circuit keeps the process live');
    });
  }

  it('when the embedded Redis keeps dying, then the circuit gives up and the service exits 75 leaving no process behind', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    service = await startServiceProcess(dataDir, port, {
      EMBEDDED_RESTART_MAX_FAILURES: '2',
      EMBEDDED_RESTART_WINDOW_SECONDS: '120',
      // The shutdown's own log lines (info) say how it ended.
      LOG_LEVEL: 'info',
    });
    assert.equal((await fetch(`${base}/healthz/live`)).status, 200);
    const [firstPid, databasePid] = embeddedChildren(dataDir);
    process.kill(firstPid!, 'SIGKILL');
    const secondPid = await eventually('the Redis child is restarted once', 30_000, async () => {
      const [pid] = embeddedChildren(dataDir);
      return pid !== firstPid && isAlive(pid!) ? pid : undefined;
    });
    process.kill(secondPid!, 'SIGKILL');
    // Exiting (rather than staying up unable to serve) is what gets compose's restart policy or an
    // orchestrator to start it afresh; 75 says why. The test's timeout is the only clock: how long
    // the exit takes is not what is checked, but how it came about (below).
    const code = await service.exited;
    const output = service.output();
    assert.equal(code, 75, `the service exits with 75:\n${output.slice(-3000)}`);
    // The shutdown does not wait on the dead Redis (workers, queue connections) until its forced
    // exit at 2 × SHUTDOWN_TIMEOUT_MS: it began because the circuit opened, ran to its end ("stopped")
    // and the process exited from there, never from the deadline ("took too long").
    const shutdown = logLines(output).filter((l) => l.msg === 'shutting down');
    assert.deepEqual(
      shutdown.map((l) => l.reason),
      ['embedded redis-server abandoned'],
      `the shutdown began once, because the circuit opened:\n${output.slice(-3000)}`,
    );
    assert.ok(
      logLines(output).some((l) => l.msg === 'stopped'),
      `the shutdown ran to its end:\n${output.slice(-3000)}`,
    );
    assert.doesNotMatch(output, /graceful shutdown took too long/);
    assert.match(output, /redis-server keeps exiting: not restarting it again/);
    assert.equal(output.match(/exited; restarting it/g)?.length, 1, 'only the first death was restarted');
    // A shutdown forced past its deadline SIGKILLs the children as it exits: give the kernel a moment.
    await eventually('no embedded child outlives the service', 5000, async () =>
      [firstPid!, secondPid!, databasePid!].every((pid) => !running(pid)) ? true : undefined,
    );
    assert.deepEqual(processesUsing(dataDir), [], 'no process runs on the data directory');
  });
});
