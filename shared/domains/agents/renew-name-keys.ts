import type { Models } from '../models.js';
import { nameSkeleton } from './agent-name.js';

/** Agents renewed per bulk command. */
const BATCH = 500;

/**
 * Gives every agent whose stored lookalike key is not its name's current skeleton the current one
 * (agents registered before names had keys, or keyed by an earlier skeleton): a board decides who
 * holds a name by these keys, so an agent that never traded must hold its name too. Each update is
 * guarded by the name and key it read, so a rename in between wins. Run at every start; a no-op
 * once every key is current. The number renewed.
 */
export async function renewNameKeys(models: Pick<Models, 'Agent'>): Promise<number> {
  let renewed = 0;
  let ops: Parameters<Models['Agent']['bulkWrite']>[0] = [];
  const flush = async () => {
    if (!ops.length) return;
    const written = await models.Agent.bulkWrite(ops, { ordered: false });
    renewed += written.modifiedCount;
    ops = [];
  };
  for await (const a of models.Agent.find({}, { name: 1, nameKey: 1 }).lean().cursor()) {
    const key = nameSkeleton(a.name);
    if (a.nameKey === key) continue;
    ops.push({
      updateOne: {
        filter: { _id: a._id, name: a.name, nameKey: a.nameKey ?? null },
        update: { $set: { nameKey: key } },
      },
    });
    if (ops.length >= BATCH) await flush();
  }
  await flush();
  return renewed;
}
