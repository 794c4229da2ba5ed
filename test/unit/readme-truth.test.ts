import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The README's claims that a later change can silently make false: the venue seam's grep that
 * "prints nothing", and the structure sketch's list of domain folders. Each is checked against the
 * tree, so the change that breaks the claim is the one that has to fix it (the README or the code).
 */
const DOMAINS = 'shared/domains';
const VENUE_NAME = /['"](polymarket|kalshi|dflow)['"]|polymarketId|kalshiTicker/;

function tsFilesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFilesUnder(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

describe('the README stays true #unit', () => {
  it('when shared/domains outside venues/ is searched for venue names, then nothing is found (the seam)', () => {
    const leaks = tsFilesUnder(DOMAINS)
      .filter((file) => !file.startsWith(`${DOMAINS}/venues/`))
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .map((line, i) => ({ where: `${file}:${i + 1}`, line }))
          .filter(({ line }) => VENUE_NAME.test(line)),
      )
      .map(({ where, line }) => `${where}: ${line.trim()}`);
    assert.deepEqual(leaks, [], 'venue names belong behind the venue seam (shared/domains/venues/)');
  });

  it('when the structure sketch is read, then it names every domain folder and no folder that is gone', () => {
    const readme = readFileSync('README.md', 'utf8');
    const sketch = readme.slice(readme.indexOf('shared/domains/   '), readme.indexOf('\nscripts/   '));
    assert.ok(sketch.length > 0, 'the README keeps a structure sketch of shared/domains/');
    const named = [...sketch.matchAll(/^ {2}([a-z-]+)\/ /gm)].map((m) => m[1]).sort();
    const folders = readdirSync(DOMAINS)
      .filter((name) => statSync(join(DOMAINS, name)).isDirectory())
      .sort();
    assert.deepEqual(named, folders);
  });
});
