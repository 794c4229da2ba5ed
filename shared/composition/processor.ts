import type { Deps } from './deps.js';
import type { Logger } from '../infra/logger.js';
import type { JobData, JobName } from '../infra/queue/jobs.js';

export interface ProcessorContext {
  deps: Deps;
  jobId: string;
  /** 1 on the first run, 2 on the first retry, … */
  attempt: number;
  log: Logger;
}

/** Domain work for one job; receives the parsed payload, never the BullMQ Job. */
export type Processor<N extends JobName> = (data: JobData<N>, ctx: ProcessorContext) => Promise<unknown>;

/** Exhaustive: a job name without a processor fails to compile. */
export type ProcessorRegistry = { [N in JobName]: Processor<N> };
