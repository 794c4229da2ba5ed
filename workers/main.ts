import { isMain } from '../shared/infra/process/is-main.js';
import { healthRole } from '../shared/composition/health-server.js';
import { runProcess } from '../shared/composition/run-process.js';
import type { Role } from '../shared/composition/role.js';
import { selectQueues, startWorkers, stopWorkers } from '../shared/composition/worker-pool.js';
import { PROCESSORS } from './registry.js';
import { startFillFeed } from '../shared/domains/fill-feed/fill-feed-follower.js';

/** BullMQ worker pools, one Worker per selected queue. Stateless: scale by adding replicas. */
export const workersRole: Role = {
  name: 'workers',
  async start(deps) {
    const queues = selectQueues(deps.env.WORKER_QUEUES);
    const workers = startWorkers(deps, PROCESSORS, queues);
    await Promise.all(workers.map((w) => w.waitUntilReady()));
    deps.log.info({ queues, concurrency: deps.env.WORKER_CONCURRENCY }, 'workers started');
    // Every workers process that serves the queue the fill feed feeds runs the follower; only the
    // holder of its lease follows the venues. A pool of other queues alone (WORKER_QUEUES=trades)
    // neither reads the chain nor writes the cursor.
    const fillFeed = queues.includes('reactor') ? startFillFeed(deps) : null;
    return {
      stop: async () => {
        await fillFeed?.stop();
        await stopWorkers(workers, deps.env.SHUTDOWN_TIMEOUT_MS);
      },
    };
  },
};

if (isMain(import.meta.url)) void runProcess('workers', [workersRole, healthRole], { embedded: false });
