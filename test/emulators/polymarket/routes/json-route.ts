import type { Request, Response } from 'express';

/** A refusal as the emulated service answers it: a status and a JSON body (`{"error": …}` by default). */
export class HttpError extends Error {
  readonly body: Record<string, unknown>;
  constructor(
    readonly status: number,
    message: string,
    body?: Record<string, unknown>,
  ) {
    super(message);
    this.body = body ?? { error: message };
  }
}

/** A JSON route: the handler's value is the body; an HttpError becomes its status and body. */
export function jsonRoute(fn: (req: Request) => unknown) {
  return (req: Request, res: Response) => {
    try {
      res.json(fn(req));
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      res.status(err.status).json(err.body);
    }
  };
}
