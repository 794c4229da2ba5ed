import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, isAlive } from '../../shared/infra/embedded/child-process.js';
import { startServiceProcess } from '../support/service-process.js';

describe('npm start: embedded default, graceful stop and restart persistence #integration', function () {
  this.timeout(240_000);
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'ats-start-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('when the service is stopped with SIGTERM and started again, then the agent registered before still authenticates', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const first = await startServiceProcess(dataDir, port);
    assert.match(
      first.output(),
      /Operator token \(generated into .*operator-token; shown only now\): \S{20,}/,
    );
    assert.match(first.output(), /API docs: +http:\/\/localhost:\d+\/docs/);

    const reg = await fetch(`${base}/api/sdk/agents/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"a"}',
    });
    assert.equal(reg.status, 200);
    const { api_key: key, agent_id: agentId } = (await reg.json()) as { api_key: string; agent_id: string };
    const ready = await fetch(`${base}/healthz/ready`);
    assert.equal(ready.status, 200);

    const lock = JSON.parse(readFileSync(join(dataDir, 'embedded.pid'), 'utf8')) as { children: number[] };
    assert.equal(lock.children.length, 2, 'redis-server and the MongoDB-wire server run as children');
    first.proc.kill('SIGTERM');
    assert.equal(await first.exited, 0, `graceful exit:\n${first.output()}`);
    for (const pid of lock.children) assert.equal(isAlive(pid), false, `child ${pid} stopped`);
    assert.equal(existsSync(join(dataDir, 'embedded.pid')), false, 'lock released');
    await assert.rejects(fetch(`${base}/healthz/live`), 'HTTP stopped accepting');

    const second = await startServiceProcess(dataDir, port);
    try {
      assert.match(second.output(), /Operator token: in /, 'the token is printed only when generated');
      const me = await fetch(`${base}/api/sdk/agents/me`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(me.status, 200);
      const body = (await me.json()) as { agent_id: string; balance: number };
      assert.equal(body.agent_id, agentId);
      assert.equal(body.balance, 10000);
    } finally {
      second.proc.kill('SIGTERM');
      assert.equal(await second.exited, 0);
    }
  });
});
