// `npm run tape:import -- --markets <file> --quant <file> [--source <name>] [--base-url <url> [--token <t>]]`:
// loads an external dataset (two parquet files in the tape schema, README "Backtest tapes") into the
// backtest tape store as a source of its own, then prints what the store now covers.
// Without --base-url it writes into DATA_DIR/tapes directly: safe while `npm start` runs on the same
// DATA_DIR (the store is immutable files, renamed into place). With --base-url it uploads the files
// to that service with the operator token (--token, else OPERATOR_TOKEN, else DATA_DIR/operator-token),
// each with its Content-Digest (sha-256), so that a file damaged on its way is refused, not imported.
import { randomUUID } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { fileContentDigest } from '../shared/infra/content-digest.js';
import { ConfigError, loadEnv } from '../shared/infra/config/env.js';
import { resolveOperatorToken } from '../shared/infra/operator-token.js';
import { importTape, TapeImportError } from '../shared/domains/tapes/import-tape.js';
import { listStoreFiles, tapeDirs } from '../shared/domains/tapes/tape-store.js';

const USAGE =
  'usage: npm run tape:import -- --markets <markets.parquet> --quant <quant.parquet> [--source <name>] [--base-url <url> [--token <operator token>]]';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/**
 * The store's days, read from its folders: the first and last day with prints and the sources. (The
 * service's coverage_t1 also knows whether its recorder is live: GET /api/backtest/tape/coverage.)
 */
function storeDays(dataDir: string) {
  const files = listStoreFiles(tapeDirs(dataDir));
  const days = files.prints.map((p) => p.day).sort();
  const sources = [...new Set(files.prints.map((p) => p.source))];
  return {
    first_day: days[0] ?? null,
    last_day: days.at(-1) ?? null,
    sources,
    print_files: files.prints.length,
  };
}

async function remote(baseUrl: string, token: string, source: string, markets: string, quant: string) {
  const base = baseUrl.replace(/\/+$/, '');
  const auth = { Authorization: `Bearer ${token}` };
  const uploadId = randomUUID();
  for (const [name, file] of [
    ['markets.parquet', markets],
    ['quant.parquet', quant],
  ] as const) {
    const res = await fetch(`${base}/api/admin/tapes/uploads/${uploadId}/${name}`, {
      method: 'PUT',
      headers: {
        ...auth,
        'Content-Type': 'application/octet-stream',
        'Content-Length': String(statSync(file).size),
        // The service refuses a body whose bytes are not these (one changed on its way): RFC 9530.
        'Content-Digest': await fileContentDigest(file),
      },
      body: Readable.toWeb(createReadStream(file)) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    if (!res.ok)
      throw new TapeImportError(`upload of ${basename(file)} failed: ${res.status} ${await res.text()}`);
  }
  const coverage = async () => {
    const res = await fetch(`${base}/api/admin/tapes`, { headers: auth });
    return res.ok ? ((await res.json()) as Record<string, unknown>) : { status: res.status };
  };
  const before = await coverage();
  const res = await fetch(`${base}/api/admin/tapes/import`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ upload_id: uploadId, source }),
  });
  const body = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new TapeImportError(`${res.status}: ${String(body.detail ?? JSON.stringify(body))}`);
  const pick = (c: Record<string, unknown>) => ({
    coverage_t0: c.coverage_t0,
    coverage_t1: c.coverage_t1,
    prints: c.prints,
    markets: c.markets,
  });
  return { imported: body, coverage_before: pick(before), coverage_after: pick(await coverage()) };
}

try {
  const markets = arg('markets');
  const quant = arg('quant');
  if (!markets || !quant) {
    console.error(USAGE);
    process.exit(2);
  }
  const source = arg('source') ?? 'imported';
  const baseUrl = arg('base-url');
  if (baseUrl) {
    const env = loadEnv();
    const token = arg('token') ?? process.env.OPERATOR_TOKEN ?? resolveOperatorToken(env).token;
    console.log(
      JSON.stringify(await remote(baseUrl, token, source, resolve(markets), resolve(quant)), null, 2),
    );
  } else {
    const env = loadEnv();
    const before = storeDays(env.DATA_DIR);
    const imported = await importTape(tapeDirs(env.DATA_DIR), source, resolve(markets), resolve(quant));
    console.log(
      JSON.stringify({ imported, store_before: before, store_after: storeDays(env.DATA_DIR) }, null, 2),
    );
  }
} catch (err) {
  if (err instanceof ConfigError || err instanceof TapeImportError) {
    console.error(`tape:import: ${err.message}`);
    process.exit(1);
  }
  throw err;
}
