/** A DFlow trade API refusal: HTTP status and `{code, msg}` (kalshi.md §2.4), with optional details. */
export class DflowError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    msg: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(msg);
  }

  get body(): Record<string, unknown> {
    return this.details
      ? { code: this.code, msg: this.message, details: this.details }
      : { code: this.code, msg: this.message };
  }
}

export const routeNotFound = (why: string) =>
  new DflowError(400, 'route_not_found', `Route not found: ${why}`);
