import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import mongoose from 'mongoose';
import { freePort } from '../../shared/infra/embedded/child-process.js';
import { embeddedMongoEngine, startMongoServer } from '../../shared/infra/embedded/mongo-server.js';
import { createLogger } from '../../shared/infra/logger.js';

const root = resolve(import.meta.dirname, '../..');

/** A test document: a string id, anything else. */
type Doc = { _id: string; [field: string]: unknown };

/** What the trade path stores: strings, numbers of each width, dates, flags, nulls, arrays, sub-documents. */
const sample = (i: number) => ({
  _id: `doc-${i}`,
  agentId: `agent-${i % 3}`,
  seq: i,
  big: 2 ** 40 + i,
  price: 0.25 + i / 1000,
  at: new Date(1_700_000_000_000 + i),
  open: i % 2 === 0,
  note: null,
  tags: ['a', `t${i}`],
  fill: { sharesMicro: 1_000_000 + i, side: i % 2 ? 'yes' : 'no', path: [{ k: i }] },
});

/** Restarts the embedded server on the same directory (a clean stop: SIGTERM). */
async function restart(server: Awaited<ReturnType<typeof startMongoServer>>, dir: string) {
  await server.child.stop();
  return startMongoServer({ dir, persistent: true, log: createLogger('silent', 'test') });
}

describe('the embedded database (mongod when on the PATH, else mongo-java-server on an H2 file) #integration', function () {
  this.timeout(120_000);

  it('when its process is killed with SIGKILL, then every write it acknowledged is there after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ats-durability-'));
    const log = createLogger('silent', 'test');
    try {
      // Whichever engine the embedded default picks: each must keep what it acknowledged.
      let server = await startMongoServer({ dir, persistent: true, log });
      let conn = await mongoose.createConnection(server.url, { dbName: 'durability' }).asPromise();
      const docs = conn.db!.collection('writes');
      // Well inside H2's one-second commit interval (and mongod's 100 ms journal interval): only a
      // durable commit per acknowledged write keeps these.
      for (let i = 0; i < 200; i++) {
        await docs.insertOne({ i });
        await docs.updateOne({ i }, { $set: { acked: true } });
      }
      await docs.bulkWrite([{ insertOne: { document: { i: 'bulk' } } }]);
      server.child.process.kill('SIGKILL');
      await new Promise((r) => server.child.process.once('exit', r));
      await conn.close().catch(() => undefined);

      server = await startMongoServer({ dir, persistent: true, log });
      conn = await mongoose.createConnection(server.url, { dbName: 'durability' }).asPromise();
      const after = conn.db!.collection('writes');
      assert.equal(await after.countDocuments({ acked: true }), 200);
      assert.equal(await after.countDocuments({ i: 'bulk' }), 1);
      await conn.close();
      await server.child.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when a write command fails part-way, then what it applied before failing survives SIGKILL too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ats-durability-'));
    const log = createLogger('silent', 'test');
    try {
      let server = await startMongoServer({ dir, persistent: true, log });
      let conn = await mongoose.createConnection(server.url, { dbName: 'durability' }).asPromise();
      const docs = conn.db!.collection<{ _id: string; n: number | string }>('partial');
      await docs.insertMany([
        { _id: 'a', n: 1 },
        { _id: 'b', n: 'text' },
      ]);
      // An ordered insert stops at the duplicate; an update of many stops at the document it cannot
      // change: each answers an error, and what came before it stays applied (as on MongoDB).
      await assert.rejects(
        docs.insertMany(
          [
            { _id: 'c', n: 1 },
            { _id: 'a', n: 2 },
            { _id: 'd', n: 1 },
          ],
          { ordered: true },
        ),
      );
      await assert.rejects(docs.updateMany({}, { $inc: { n: 1 } } as object));
      const applied = await docs.find().sort({ _id: 1 }).toArray();
      server.child.process.kill('SIGKILL');
      await new Promise((r) => server.child.process.once('exit', r));
      await conn.close().catch(() => undefined);

      server = await startMongoServer({ dir, persistent: true, log });
      conn = await mongoose.createConnection(server.url, { dbName: 'durability' }).asPromise();
      const after = conn.db!.collection<{ _id: string; n: number | string }>('partial');
      assert.deepEqual(await after.find().sort({ _id: 1 }).toArray(), applied);
      await conn.close();
      await server.child.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when the file is new, then documents of every kind the service writes and unique indexes (compound, sparse, a missing field) read back the same after a restart, and duplicates stay refused', async function () {
    const dir = mkdtempSync(join(tmpdir(), 'ats-format-'));
    try {
      let server = await startMongoServer({ dir, persistent: true, log: createLogger('silent', 'test') });
      let conn = await mongoose.createConnection(server.url, { dbName: 'format' }).asPromise();
      let docs = conn.db!.collection<Doc>('docs');
      await docs.createIndex({ agentId: 1, seq: 1 }, { unique: true });
      await docs.createIndex({ key: 1 }, { unique: true, sparse: true });
      await docs.createIndex({ code: 1 }, { unique: true });
      const written = Array.from({ length: 300 }, (_, i) => ({
        ...sample(i),
        ...(i % 5 ? {} : { key: `k${i}` }),
        code: i ? `c${i}` : undefined,
      }));
      for (const d of written) if (d.code === undefined) delete (d as { code?: string }).code;
      await docs.insertMany(written);
      await docs.updateOne({ _id: 'doc-7' }, {
        $set: { 'fill.side': 'no', price: 0.5 },
        $inc: { seq: 1000 },
      } as object);
      const before = await docs.find().sort({ _id: 1 }).toArray();
      await conn.close();
      server = await restart(server, dir);
      conn = await mongoose.createConnection(server.url, { dbName: 'format' }).asPromise();
      docs = conn.db!.collection<Doc>('docs');
      assert.deepEqual(await docs.find().sort({ _id: 1 }).toArray(), before);
      assert.equal((await docs.findOne({ agentId: 'agent-1', seq: 1007 }))?._id, 'doc-7');
      assert.equal((await docs.findOne({ key: 'k10' }))?._id, 'doc-10');
      const duplicate = (doc: Doc) =>
        assert.rejects(docs.insertOne(doc), (err: { code?: number }) => err.code === 11000);
      await duplicate({ _id: 'x1', agentId: 'agent-2', seq: 5, code: 'x1' }); // compound key taken
      await duplicate({ _id: 'x2', agentId: 'z', seq: 0, key: 'k20', code: 'x2' }); // sparse key taken
      await duplicate({ _id: 'x3', agentId: 'z', seq: 1 }); // `code` missing, as doc-0's is
      await duplicate({ _id: 'doc-3', agentId: 'z', seq: 2, code: 'x4' }); // _id taken
      await docs.insertOne({ _id: 'x5', agentId: 'z', seq: 3, code: 'x5' }); // sparse: no `key` is fine
      assert.equal(await docs.countDocuments(), 301);
      await conn.close();
      await server.child.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when the file was written by the stock mongo-java-server H2 backend (before the compact format), then it opens in that format: its documents, unique indexes and new writes work across restarts', async function () {
    if (embeddedMongoEngine() !== 'mongo-java-server') this.skip(); // a mongod on the PATH is the embedded engine: no H2 file
    const dir = mkdtempSync(join(tmpdir(), 'ats-format-'));
    try {
      const classpath = readFileSync(
        join(root, '.cache', 'mongo-java-server', 'classpath.txt'),
        'utf8',
      ).trim();
      const port = await freePort();
      const stock = spawn(
        'java',
        [
          '-cp',
          classpath,
          join(root, 'test/fixtures/mongo-java-server/StockH2Server.java'),
          String(port),
          join(dir, 'mongo-java-server.mv'),
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      await new Promise<void>((ok, fail) => {
        stock.stdout!.on('data', (c: Buffer) => String(c).includes('listening') && ok());
        stock.once('exit', (code) => fail(new Error(`stock server exited ${code}`)));
      });
      let conn = await mongoose
        .createConnection(`mongodb://127.0.0.1:${port}`, { dbName: 'format' })
        .asPromise();
      let docs = conn.db!.collection<Doc>('docs');
      await docs.createIndex({ agentId: 1, seq: 1 }, { unique: true });
      await docs.insertMany(Array.from({ length: 50 }, (_, i) => sample(i)));
      const before = await docs.find().sort({ _id: 1 }).toArray();
      await conn.close();
      const exited = new Promise((r) => stock.once('exit', r));
      stock.kill('SIGTERM');
      await exited;

      let server = await startMongoServer({ dir, persistent: true, log: createLogger('silent', 'test') });
      conn = await mongoose.createConnection(server.url, { dbName: 'format' }).asPromise();
      docs = conn.db!.collection<Doc>('docs');
      assert.deepEqual(await docs.find().sort({ _id: 1 }).toArray(), before);
      await assert.rejects(
        docs.insertOne({ _id: 'x', agentId: 'agent-1', seq: 4 }),
        (err: { code?: number }) => err.code === 11000,
      );
      await docs.insertOne(sample(50));
      await conn.close();
      server = await restart(server, dir);
      conn = await mongoose.createConnection(server.url, { dbName: 'format' }).asPromise();
      docs = conn.db!.collection<Doc>('docs');
      assert.equal(await docs.countDocuments(), 51);
      assert.equal((await docs.findOne({ agentId: 'agent-2', seq: 50 }))?._id, 'doc-50');
      await conn.close();
      await server.child.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('when documents beside unchanged neighbours are updated over and over by concurrent writers, then after SIGKILL every one reads back as last acknowledged, also once read back from the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ats-durability-'));
    const log = createLogger('silent', 'test');
    // Each document's state as last acknowledged, by id: what must be on the file after a crash.
    const expected = new Map<string, Doc>();
    const kill = async (server: Awaited<ReturnType<typeof startMongoServer>>, conn: mongoose.Connection) => {
      server.child.process.kill('SIGKILL');
      await new Promise((r) => server.child.process.once('exit', r));
      await conn.close().catch(() => undefined);
    };
    /** Writers each own a slice of the ids (so the expected state is exact) and update them at random. */
    const churn = async (docs: mongoose.mongo.Collection<Doc>, rounds: number) => {
      const writers = Array.from({ length: 8 }, async (_, w) => {
        for (let r = 0; r < rounds; r++) {
          const i = w + 8 * Math.floor(Math.random() * 50);
          const id = `doc-${i}`;
          const set = {
            price: Math.random(),
            [`f${r % 3}`]: `w${w}r${r}`,
            'fill.side': r % 2 ? 'yes' : 'no',
          };
          await docs.updateOne({ _id: id }, { $set: set, $inc: { seq: 1 } } as object);
          const d = structuredClone(expected.get(id)!);
          Object.assign(d, { price: set.price, [`f${r % 3}`]: set[`f${r % 3}`], seq: (d.seq as number) + 1 });
          (d.fill as { side: string }).side = set['fill.side'];
          expected.set(id, d);
        }
      });
      await Promise.all(writers);
    };
    const check = async (conn: mongoose.Connection) => {
      const stored = await conn.db!.collection<Doc>('churn').find().toArray();
      assert.equal(stored.length, 400);
      for (const d of stored) assert.deepEqual(d, expected.get(d._id), d._id);
    };
    try {
      let server = await startMongoServer({ dir, persistent: true, log });
      let conn = await mongoose.createConnection(server.url, { dbName: 'durability' }).asPromise();
      const written = Array.from({ length: 400 }, (_, i) => sample(i));
      await conn.db!.collection<Doc>('churn').insertMany(written.map((d) => ({ ...d })));
      for (const d of written) expected.set(d._id, d);
      await churn(conn.db!.collection<Doc>('churn'), 150);
      await kill(server, conn);

      // The documents now come from the file; updated again, beside neighbours read from it.
      server = await startMongoServer({ dir, persistent: true, log });
      conn = await mongoose.createConnection(server.url, { dbName: 'durability' }).asPromise();
      await check(conn);
      await churn(conn.db!.collection<Doc>('churn'), 150);
      await kill(server, conn);

      server = await startMongoServer({ dir, persistent: true, log });
      conn = await mongoose.createConnection(server.url, { dbName: 'durability' }).asPromise();
      await check(conn);
      await conn.close();
      await server.child.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
