import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mongoose from 'mongoose';
import { startMongoServer } from '../../shared/infra/embedded/mongo-server.js';
import { createLogger } from '../../shared/infra/logger.js';

/** The documents of the first test: every depth an update can reach. */
interface Shape {
  _id: string;
  owner: string;
  at: number;
  fill: { side: string; legs: Record<string, unknown>[]; price?: number };
  tags?: string[];
  status?: string;
  newField?: unknown[];
}

/**
 * The development database's memory backend (the test suite's and the read benches'), which stores
 * documents with shared field names and, after an update brings new names, puts a copy in the
 * stored document's place: what comes back must be what was written, field order included, and a
 * reader must never see a document between its old and new state.
 */
describe('the development database in memory #integration', function () {
  this.timeout(60_000);
  let dir: string;
  let server: Awaited<ReturnType<typeof startMongoServer>>;
  let conn: mongoose.Connection;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dev-db-memory-'));
    server = await startMongoServer({ dir, persistent: false, log: createLogger('silent', 'test') });
    conn = await mongoose.createConnection(server.url, { dbName: 'memory_test' }).asPromise();
  });

  after(async () => {
    await conn?.close();
    await server?.child.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when updates add, change and remove fields at every depth, then each document reads back exactly as MongoDB would give it, in field order, by id and by a secondary index', async () => {
    const docs = conn.collection<Shape>('shapes');
    await docs.createIndex({ owner: 1, at: -1 });
    await docs.insertMany([
      { _id: 'a', owner: 'x', at: 1, fill: { side: 'yes', legs: [{ k: 1 }, { k: 2 }] }, tags: ['t'] },
      { _id: 'b', owner: 'x', at: 2, fill: { side: 'no', legs: [] } },
    ]);
    await docs.updateOne(
      { _id: 'a' },
      {
        $set: { status: 'filled', 'fill.legs.1.extra': { deep: true }, 'fill.price': 0.5 },
        $unset: { tags: '' },
      },
    );
    await docs.updateOne({ _id: 'a' }, { $push: { 'fill.legs': { k: 3, added: 'late' } }, $inc: { at: 10 } });
    await docs.updateOne({ _id: 'b' }, { $set: { owner: 'y', newField: [{ inner: { name: 'n' } }] } });

    const a = await docs.findOne({ _id: 'a' });
    assert.equal(
      JSON.stringify(a),
      JSON.stringify({
        _id: 'a',
        owner: 'x',
        at: 11,
        fill: {
          side: 'yes',
          legs: [{ k: 1 }, { k: 2, extra: { deep: true } }, { k: 3, added: 'late' }],
          price: 0.5,
        },
        status: 'filled',
      }),
    );
    // The index still finds each document at its position after the copies replaced them.
    assert.deepEqual(
      (await docs.find({ owner: 'x' }).toArray()).map((d) => d._id),
      ['a'],
    );
    assert.equal(
      JSON.stringify(await docs.findOne({ owner: 'y' })),
      JSON.stringify({
        _id: 'b',
        owner: 'y',
        at: 2,
        fill: { side: 'no', legs: [] },
        newField: [{ inner: { name: 'n' } }],
      }),
    );
    // Removal finds the replaced document's index entries.
    await docs.deleteOne({ _id: 'b' });
    assert.equal(await docs.countDocuments({ owner: 'y' }), 0);
    assert.equal(await docs.countDocuments({}), 1);
  });

  it('when a document is updated with new fields over and over while others read it, then every read sees it whole, before or after an update', async () => {
    const docs = conn.collection<{ _id: string; [field: string]: unknown }>('churn');
    // Many fields: an edit made in place puts them back one by one, which leaves a reader a wide
    // window to see the document half done (the new field comes last).
    const fixed = {
      owner: 'o',
      sharesMicro: 5_000_000,
      fill: { side: 'yes', legs: [{ k: 1 }] },
      ...Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, i])),
    };
    await docs.insertOne({ _id: 'c', ...fixed, n: 0 });
    let writing = true;
    const writer = (async () => {
      for (let n = 1; n <= 300; n++) {
        // Each update brings a field name never stored before (a copy replaces the document) and
        // drops the last one.
        await docs.updateOne({ _id: 'c' }, { $set: { n, [`f${n}`]: n }, $unset: { [`f${n - 1}`]: '' } });
      }
      writing = false;
    })();
    let reads = 0;
    const reader = async () => {
      while (writing) {
        const doc = await docs.findOne({ _id: 'c' });
        assert.ok(doc);
        const seen = Object.fromEntries(Object.keys(fixed).map((k) => [k, doc[k]]));
        assert.deepEqual(
          seen,
          fixed,
          `read ${reads} saw a partial document (${Object.keys(doc).length} fields)`,
        );
        const n = doc.n as number;
        const extra = Object.keys(doc).filter((k) => /^f\d+$/.test(k));
        assert.deepEqual(extra, n === 0 ? [] : [`f${n}`], `read ${reads}: ${JSON.stringify(doc)}`);
        reads++;
      }
    };
    await Promise.all([writer, reader(), reader(), reader()]);
    assert.ok(reads > 0);
    assert.equal((await docs.findOne({ _id: 'c' }))?.n, 300);
  });
});
