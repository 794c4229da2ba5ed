import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody } from '../errors.js';

/** What Node's HTTP parser reports, as the status and contract body the caller gets. */
function answerFor(code: string | undefined): {
  status: number;
  errorCode: string;
  message: string;
  fix: string;
} {
  if (code === 'HPE_HEADER_OVERFLOW')
    return {
      status: 431,
      errorCode: 'headers_too_large',
      message: 'Request header fields too large',
      fix: 'Send smaller headers (cookies, tokens): all headers together must stay under 16 KB.',
    };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return {
      status: 408,
      errorCode: 'request_timeout',
      message: 'Request timed out before it was complete',
      fix: 'Send the whole request promptly; retry on a new connection.',
    };
  return {
    status: 400,
    errorCode: 'malformed_request',
    message: 'Malformed HTTP request',
    fix: 'Send a well-formed HTTP/1.1 request (see /docs for every endpoint).',
  };
}

/**
 * Requests Node refuses before Express sees them (oversized headers, a broken request line) get
 * the contract's JSON error body too, instead of Node's bare status line. A socket that is already
 * gone is left alone, as Node's own handler does.
 */
export function answerClientErrorsWithJson(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const { status, errorCode, message, fix } = answerFor(err.code);
    const body = JSON.stringify(errorBody(message, fix, { error_code: errorCode }));
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}
