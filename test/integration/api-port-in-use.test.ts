import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../shared/infra/embedded/child-process.js';
import { startServiceProcess } from '../support/service-process.js';

/**
 * Express 5 calls `app.listen`'s callback on a failed bind too: the API role took that for
 * "listening", so a service whose port another process held said it was up (and a test then talked
 * to whatever held the port: with the emulators on ports of their own, sometimes one of them).
 */
describe('npm start on a port another process holds #integration', function () {
  this.timeout(180_000);
  let blocker: Server;
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'ats-port-in-use-'));
  });
  after(async () => {
    await new Promise((r) => blocker?.close(r));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('when the API port is taken, then the service stops with EADDRINUSE instead of saying it is up', async () => {
    const port = await freePort();
    blocker = createServer((_req, res) => res.end('not the service'));
    await new Promise<void>((r) => blocker.listen(port, '127.0.0.1', r));
    const started = startServiceProcess(dataDir, port);
    await assert.rejects(started, /exited early \(1\)[\s\S]*EADDRINUSE/);
    // The old code said it was up: stop what it started.
    await started.then(
      (s) => s.proc.kill('SIGKILL'),
      () => undefined,
    );
  });
});
