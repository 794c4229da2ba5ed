import { AppError } from '../../infra/errors.js';
import type { VenueHttpError } from '../../infra/http/venue-http-error.js';

/**
 * A venue that cannot be reached (down, throttling us, changed its API, circuit open) is the
 * operator's problem, not the caller's: a retryable 503 `venue_unavailable` that says what failed;
 * a venue that refused our request is a 502 `venue_rejected`, not worth retrying.
 */
export function venueUnavailable(err: VenueHttpError): AppError {
  const venue = err.venue.charAt(0).toUpperCase() + err.venue.slice(1);
  // The venue answered and refused our request: retrying it as is will not help.
  if (err.kind === 'client')
    return new AppError(
      502,
      'venue_rejected',
      `${venue} refused the request this service made (HTTP ${err.status ?? '4xx'})`,
      'This is likely a change on the venue side; the operator can check GET /api/admin/venues and the service log.',
      { retryable: false, cause: err },
    );
  return new AppError(
    503,
    'venue_unavailable',
    `${venue} is unreachable from this service right now (${err.kind})`,
    'Retry in a minute; nothing was charged. If it persists, the operator can check GET /api/admin/venues.',
    {
      retryable: true,
      cause: err,
      ...(err.retryAfterMs ? { headers: { 'Retry-After': String(Math.ceil(err.retryAfterMs / 1000)) } } : {}),
    },
  );
}
