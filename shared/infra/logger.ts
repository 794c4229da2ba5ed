import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Field names that hold secrets, redacted at the top level and one level down wherever they appear
 * (request bodies, venue answers, errors). Sealed values (`shared/infra/secrets`) need no entry:
 * nothing in them opens without the master key.
 */
const SECRET_FIELDS = [
  'api_key',
  'api_secret',
  'api_passphrase',
  'secret',
  'passphrase',
  'private_key',
  'privateKey',
  'mnemonic',
  'poly_signature',
];

/** `destination` defaults to stdout; tests pass a stream to read what was logged. */
export function createLogger(level: string, name: string, destination?: DestinationStream): Logger {
  const options = {
    name,
    level,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Secrets never reach the log, whatever object is logged.
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        ...SECRET_FIELDS,
        ...SECRET_FIELDS.map((f) => `*.${f}`),
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
