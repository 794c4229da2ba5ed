import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const compose = readFileSync(resolve(import.meta.dirname, '../../docker-compose.yml'), 'utf8');

/** The text of each top-level entry under `key:` (two-space indented names), by name. */
function blocks(text: string, key: string): Map<string, string> {
  const section = text.split(new RegExp(`^${key}:\\s*$`, 'm'))[1]?.split(/^\S/m)[0] ?? '';
  const found = new Map<string, string>();
  for (const part of section.split(/^ {2}(?=[A-Za-z0-9_-]+:\s*$)/m).slice(1)) {
    const name = part.slice(0, part.indexOf(':'));
    found.set(name, part);
  }
  return found;
}

describe('docker-compose.yml: every service comes back by itself #unit', () => {
  it('when a container exits, then its restart policy starts it again (the app services through x-app)', () => {
    const app = compose.split(/^x-app: &app\s*$/m)[1]?.split(/^\S/m)[0] ?? '';
    assert.match(app, /^ {2}restart: unless-stopped$/m, 'x-app has a restart policy');
    assert.match(app, /healthz\/live/, 'the app healthcheck asks /healthz/live');
    const services = blocks(compose, 'services');
    assert.ok(services.size >= 5, `services: ${[...services.keys()].join(', ')}`);
    for (const [name, text] of services) {
      assert.ok(
        /^ {4}restart: (unless-stopped|always)$/m.test(text) || /^ {4}<<: \*app$/m.test(text),
        `${name} has a restart policy`,
      );
    }
  });
});
