import { ConfigError, loadEnv, type Env } from '../infra/config/env.js';
import { closeDeps, createDeps } from './create-deps.js';
import type { Deps } from './deps.js';
import { startInfrastructure, type InfrastructureHandle } from '../infra/embedded/infrastructure.js';
import { createLogger, type Logger } from '../infra/logger.js';
import { armFaults } from '../infra/faults.js';
import type { Role, RunningRole } from './role.js';
import { reconcileRedisWithDatabase } from '../domains/trading/reconcile-redis.js';
import { redisTargetOf } from '../infra/redis.js';

export interface RunningProcess {
  env: Env;
  log: Logger;
  deps: Deps;
  infrastructure?: InfrastructureHandle;
  shutdown(reason: string): Promise<void>;
}

/**
 * The exit code when an embedded server's restart circuit opened (EX_TEMPFAIL: "try again later").
 * The process exits rather than stay up unable to serve, so that compose's `restart: unless-stopped`
 * or an orchestrator starts it afresh; any other failure exits 1.
 */
export const EXIT_EMBEDDED_SERVER_ABANDONED = 75;

/**
 * How long a shutdown step that needs Redis is given once the embedded Redis is gone for good,
 * instead of waiting until the forced exit (2 × SHUTDOWN_TIMEOUT_MS): HTTP requests in flight and
 * work that needs only the database get this long to end.
 */
const REDIS_GONE_GRACE_MS = 2000;

function loadEnvOrExit(): Env {
  try {
    return loadEnv();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
}

/**
 * Starts the given roles in this process and wires graceful shutdown: on SIGTERM/SIGINT the roles
 * stop in reverse order (HTTP first), then connections close, then embedded servers stop.
 * `embedded: true` (npm start) starts Redis/MongoDB when their URLs are unset; a single role
 * (docker-compose) requires the URLs instead.
 */
export async function runProcess(
  name: string,
  roles: Role[],
  opts: { embedded: boolean },
): Promise<RunningProcess> {
  const env = loadEnvOrExit();
  const log = createLogger(env.LOG_LEVEL, name);
  armFaults(env.FAULT_KILL_AFTER_WRITES);
  if (!opts.embedded && ((!env.REDIS_URL && !env.REDIS_CLUSTER_NODES) || !env.MONGODB_URI)) {
    console.error(
      `${name}: REDIS_URL (or REDIS_CLUSTER_NODES) and MONGODB_URI must be set when starting a single role. Use \`npm start\` for the all-in-one process with embedded Redis and MongoDB.`,
    );
    process.exit(1);
  }
  let infrastructure: InfrastructureHandle | undefined;
  let deps: Deps | undefined;
  const running: RunningRole[] = [];
  let shuttingDown: Promise<void> | undefined;
  // What a shutdown that has to be forced exits with: the reason it began with, if that was a failure.
  let failureExitCode = 1;
  // Set when the embedded Redis is gone for good (its restart circuit opened): nothing the shutdown
  // would wait for on Redis (workers finishing jobs, queue connections closing) can happen any more.
  let redisGone = false;
  /** `step`, or past REDIS_GONE_GRACE_MS when Redis is gone: what it waited on will not come. */
  const unlessRedisGone = (what: string, step: Promise<void>) =>
    redisGone
      ? Promise.race([
          step,
          new Promise<void>((r) => setTimeout(r, REDIS_GONE_GRACE_MS).unref()).then(() =>
            log.warn({ step: what }, 'Redis is gone: not waiting for this step of the shutdown'),
          ),
        ])
      : step;
  const shutdown = (reason: string) => {
    shuttingDown ??= (async () => {
      log.info({ reason }, 'shutting down');
      const force = setTimeout(() => {
        log.error('graceful shutdown took too long; exiting');
        infrastructure?.kill();
        process.exit(failureExitCode);
      }, env.SHUTDOWN_TIMEOUT_MS * 2);
      force.unref();
      for (const role of running.reverse())
        await unlessRedisGone(
          'stopping a role',
          role.stop().catch((err) => log.error({ err }, 'role stop failed')),
        );
      if (deps) {
        const open = deps;
        await unlessRedisGone(
          'closing connections',
          closeDeps(open).catch((err) => log.error({ err }, 'closing connections failed')),
        );
        // What closeDeps did not get to: the database connection must still close (its writes are
        // flushed), and the Redis connections must not keep reconnecting to nothing.
        if (redisGone) {
          open.redis.disconnect();
          await open.mongo.close().catch(() => undefined);
        }
      }
      if (infrastructure) await infrastructure.stop();
      log.info('stopped');
    })();
    return shuttingDown;
  };
  // Ctrl-C reaches us twice (from the terminal and relayed by npm), so only a signal that comes
  // well after the first one means "stop waiting and exit now".
  let firstSignalAt = 0;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (shuttingDown) {
        if (Date.now() - firstSignalAt < 2000) return;
        log.warn(`${signal} again: exiting now`);
        process.exit(1);
      }
      firstSignalAt = Date.now();
      void shutdown(signal).then(() => process.exit(0));
    });
  }
  try {
    infrastructure = opts.embedded
      ? await startInfrastructure(env, log, {
          onServerAbandoned: (server) => {
            if (shuttingDown) return;
            failureExitCode = EXIT_EMBEDDED_SERVER_ABANDONED;
            if (server === 'redis-server') redisGone = true;
            log.error(
              { server, exitCode: EXIT_EMBEDDED_SERVER_ABANDONED },
              `the embedded ${server} keeps exiting and is not restarted again: stopping the service, to be restarted whole`,
            );
            void shutdown(`embedded ${server} abandoned`).then(() =>
              process.exit(EXIT_EMBEDDED_SERVER_ABANDONED),
            );
          },
        })
      : undefined;
    const infra = infrastructure?.infra ?? {
      ...redisTargetOf(env),
      mongoUri: env.MONGODB_URI!,
    };
    deps = await createDeps(env, infra, log);
    // This process owns the embedded database, which a kill may have stopped short of writes Redis
    // already answered for; nothing serves yet, so nothing admits buys while Redis is recounted.
    if (infrastructure && !env.MONGODB_URI) await reconcileRedisWithDatabase(deps);
    for (const role of roles) running.push(await role.start(deps));
  } catch (err) {
    log.error({ err }, 'start failed');
    console.error(`${name} could not start: ${err instanceof Error ? err.message : String(err)}`);
    await shutdown('start failed');
    process.exit(1);
  }
  return { env, log, deps, infrastructure, shutdown };
}
