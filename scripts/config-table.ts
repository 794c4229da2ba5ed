// `npm run docs:config`: rewrites the README configuration table from the config schema.
import { readFileSync, writeFileSync } from 'node:fs';
import { withEnvTable } from '../shared/infra/config/env-table.js';

const path = new URL('../README.md', import.meta.url);
writeFileSync(path, withEnvTable(readFileSync(path, 'utf8')));
console.log('README.md configuration table updated.');
