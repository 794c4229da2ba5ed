import type { Deps } from './deps.js';

export interface RunningRole {
  /** Graceful: stop taking new work, finish or release what is in flight. */
  stop(): Promise<void>;
}

/** One of the service's processes (api, workers, jobs); `npm start` runs all three in one process. */
export interface Role {
  name: 'api' | 'workers' | 'jobs' | 'health';
  start(deps: Deps): Promise<RunningRole>;
}
