import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const build = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8')) as {
  include: string[];
  exclude: string[];
};
/** Top-level entries the image's build context leaves out (.dockerignore). */
const leftOut = readFileSync(join(root, '.dockerignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));

function tsFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return tsFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('production build: what the image compiles is in the image #unit', () => {
  it('when `npm run build` runs in the Docker build, then no file it compiles imports a folder .dockerignore leaves out', () => {
    const excluded = new Set(build.exclude.map(normalize));
    const compiled = build.include
      .flatMap(tsFiles)
      .filter((f) => !excluded.has(normalize(f)) && !excluded.has(f.split('/')[0]!));
    assert.ok(compiled.length > 100, `${compiled.length} files compiled`);
    const reaching: string[] = [];
    for (const file of compiled) {
      const source = readFileSync(join(root, file), 'utf8');
      for (const [, spec] of source.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
        const target = relative(root, resolve(root, dirname(file), spec!));
        if (leftOut.includes(target.split('/')[0]!)) reaching.push(`${file} → ${target}`);
      }
    }
    assert.deepEqual(reaching, [], 'exclude these from tsconfig.build.json, or move what they need');
  });
});
