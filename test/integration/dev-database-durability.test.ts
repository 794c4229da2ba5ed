import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mongoose from 'mongoose';
import { startMongoServer } from '../../shared/infra/embedded/mongo-server.js';
import { createLogger } from '../../shared/infra/logger.js';

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
});
