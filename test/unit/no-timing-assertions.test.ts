import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { findTimingAssertions } from '../support/timing-assertions.js';

/**
 * No test asserts a wall-clock duration (architecture.md §8: speed and memory targets live in
 * benchmarks, never in timed tests): such an assertion fails on a slow or busy machine while the
 * behaviour is right, and passes while it is wrong if the machine is fast. A test asserts the
 * behaviour a duration stood for (what ended the wait, which path was taken), with its timeout as
 * the only clock. There is no allow-list: nothing in test/ needs one.
 */
const root = resolve(import.meta.dirname, '../..');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : tsFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

const found = (source: string) => findTimingAssertions('example.test.ts', source).map((f) => f.text);

describe('no test asserts a wall-clock duration #unit', () => {
  it('when a test measures with the clock and asserts on the measurement, then it is found, whichever way it is written', () => {
    assert.deepEqual(
      found(`
        const killedAt = Date.now();
        const exitSeconds = (Date.now() - killedAt) / 1000;
        assert.ok(exitSeconds < 12, 'exited in time');`),
      ['exitSeconds < 12'],
    );
    assert.deepEqual(found(`const t0 = performance.now(); assert.ok(performance.now() - t0 <= 500);`), [
      'performance.now() - t0 <= 500',
    ]);
    assert.deepEqual(found(`const started = Date.now(); assert(Date.now() < started + 5_000);`), [
      'Date.now() < started + 5_000',
    ]);
    assert.deepEqual(found(`const { tookMs } = await timed(run); assert.ok(tookMs < 100);`), [
      'tookMs < 100',
    ]);
    assert.deepEqual(
      found(`
        let start = 0n;
        start = process.hrtime.bigint();
        const elapsed = process.hrtime.bigint() - start;
        if (elapsed > 1_000_000n) throw new Error('too slow');`),
      ['elapsed > 1_000_000n'],
    );
    assert.deepEqual(
      found(
        `fc.assert(fc.property(arb, (x) => { const t = Date.now(); f(x); return Date.now() - t < 50; }));`,
      ),
      ['Date.now() - t < 50'],
    );
  });

  it('when a test only waits on the clock, or checks a timestamp against it, then nothing is found', () => {
    assert.deepEqual(
      found(`
        const deadline = Date.now() + 5_000;
        while (Date.now() < deadline) await sleep(50);
        await until(() => probe(), Boolean, 60_000);
        await Promise.race([exited, sleep(90_000)]);
        const started = Date.now();
        assert.ok(checkedAt >= started - 1000 && checkedAt <= Date.now());
        const then = new Date(Date.now() - 5 * 60_000);
        assert.ok(row.createdAt < then);
        assert.ok(res.body.seconds_to_resolution > 3500);
        assert.equal(res.headers['retry-after'], '2');
        if (Date.now() > deadline) throw new Error('did not come up in time');`),
      [],
    );
  });

  it('when every test file is read, then none asserts a wall-clock duration', function () {
    // Parsing every test file: a few seconds, more on a busy machine (a wait, not a measurement).
    this.timeout(120_000);
    const files = tsFiles(join(root, 'test'));
    assert.ok(files.length > 100, `${files.length} files read`);
    const timed = files.flatMap((file) =>
      findTimingAssertions(file, readFileSync(file, 'utf8')).map(
        (f) => `${relative(root, file)}:${f.line}: ${f.text} (${f.why})`,
      ),
    );
    assert.deepEqual(timed, [], 'assert the behaviour the duration stood for; speed belongs in bench/');
  });
});
