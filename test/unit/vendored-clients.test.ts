import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const CLIENTS = resolve(import.meta.dirname, '..', 'fixtures', 'clients');
/** Ours beside the vendored files: the list itself, its README and the pinned client version. */
const OURS = new Set(['README.md', 'SHA256SUMS', 'requirements-0.24.txt']);

/** Every file under `dir`, relative to CLIENTS, without Python's byte-code caches. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === '__pycache__' ? [] : filesUnder(path);
    return [relative(CLIENTS, path)];
  });
}

// The third-party clients are the judges of our API (test/fixtures/clients/README.md): a test that
// passes because a judge was edited proves nothing, so each file must be the one vendored.
describe('vendored third-party clients', () => {
  it('are byte for byte the files SHA256SUMS lists, and nothing else', () => {
    const listed = new Map(
      readFileSync(join(CLIENTS, 'SHA256SUMS'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => {
          const [sum, path] = line.split(/ {2}\.\//);
          return [path!, sum!] as const;
        }),
    );
    const present = filesUnder(CLIENTS).filter((f) => !OURS.has(f));
    assert.deepEqual([...present].sort(), [...listed.keys()].sort(), 'files added or removed');
    for (const file of present) {
      const sum = createHash('sha256')
        .update(readFileSync(join(CLIENTS, file)))
        .digest('hex');
      assert.equal(sum, listed.get(file), `${file} differs from the vendored copy`);
    }
  });
});
