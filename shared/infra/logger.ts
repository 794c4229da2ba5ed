import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, name: string): Logger {
  return pino({
    name,
    level,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Secrets never reach the log, whatever object is logged.
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.api_key', 'api_key'],
      censor: '[redacted]',
    },
  });
}
