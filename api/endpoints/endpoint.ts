import { z } from 'zod';
import type { Request, Response } from 'express';
import type { AgentRecord } from '../../shared/domains/agents/agent.model.js';
import type { UserRecord } from '../../shared/domains/users/user.model.js';
import type { Deps } from '../../shared/composition/deps.js';
import type { JsonText } from '../http/json-text.js';

/**
 * Who may call: anyone, an agent (API key), anyone with an optional agent key (`agent-optional`: a
 * key that is sent must be valid), a human (user JWT), either of the two (`agent-or-user`: the
 * token's shape decides), an operator (OPERATOR_TOKEN), or anyone with an optional operator token
 * (`operator-optional`: a token that is sent must be valid; `req.operator` tells the handler).
 */
export type AuthMode =
  'none' | 'agent' | 'agent-optional' | 'user' | 'agent-or-user' | 'operator' | 'operator-optional';

/** Named per-IP/per-agent/per-account limits; the numbers come from config or the spec (§8). */
export type RateLimitName =
  | 'register'
  | 'context'
  | 'claim'
  | 'claim-lookup'
  | 'import'
  | 'wallet-positions'
  | 'copytrading'
  | 'wallet-challenge'
  | 'wallet-link'
  | 'polygon-rpc'
  | 'candles'
  | 'reactor-stream';

/**
 * One row of the API contract. The same zod schemas validate requests, shape handler types and
 * generate the OpenAPI document, so the three cannot drift apart.
 */
export interface EndpointSpec {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  /** OpenAPI path template, e.g. `/api/sdk/agents/claim/{claim_code}`. */
  path: string;
  auth: AuthMode;
  /** The success status when it is not 200 (e.g. 201 for a resource made, or answered again, by the call). */
  status?: 201;
  /**
   * The answer shows the agent's balance, P&L, counters or broke status (ledger projections that
   * change with every trade): the agent is read from the database, not from the process's cache.
   */
  freshAgent?: true;
  tag: string;
  summary: string;
  description?: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  response: z.ZodType;
  /**
   * A non-JSON success body; the handler then returns the body text, or for
   * `application/octet-stream` sends the body itself (a file, with Range) and returns '', as it
   * does for `text/event-stream` (a response that stays open, written as events come).
   */
  produces?: 'text/html' | 'text/plain' | 'application/octet-stream' | 'text/event-stream';
  /**
   * The handler refuses with its own 422s carrying the error body (a string `detail` the official
   * client prints, e.g. a bad backtest window), beside validation's 422s (the validation body).
   */
  refuses422?: 'error-body';
  /** Error statuses worth documenting beyond the ones implied by auth and validation. */
  errors?: readonly number[];
  rateLimit?: RateLimitName;
  /**
   * A released agent's key (its human released it; status `suspended`) may only read its own data:
   * GETs of agent routes, never an account route's answer nor a change (api/http/released-agent.ts).
   * `answers-itself`: the handler answers such a key itself (e.g. a trade's 200 `success: false`).
   */
  releasedAgent?: 'answers-itself';
}

export const endpoint = <const E extends EndpointSpec>(spec: E): E => spec;

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface HandlerInput<E extends EndpointSpec> {
  params: Parsed<E['params']>;
  query: Parsed<E['query']>;
  body: Parsed<E['body']>;
  agent: E['auth'] extends 'agent'
    ? AgentRecord
    : E['auth'] extends 'agent-or-user' | 'agent-optional'
      ? AgentRecord | undefined
      : undefined;
  user: E['auth'] extends 'user'
    ? UserRecord
    : E['auth'] extends 'agent-or-user'
      ? UserRecord | undefined
      : undefined;
  deps: Deps;
  req: Request;
  res: Response;
}

type Answer<E extends EndpointSpec> = z.input<E['response']>;

export type Handler<E extends EndpointSpec> = (
  input: HandlerInput<E>,
) => Promise<E['produces'] extends string ? string : Answer<E> | JsonText<Answer<E> & object>>;

export type HandlersFor<T extends Record<string, EndpointSpec>> = { [K in keyof T]: Handler<T[K]> };

/** Express path (`:param`) from an OpenAPI template (`{param}`). */
export const expressPath = (template: string) => template.replace(/\{([^}]+)\}/g, ':$1');

export const ErrorBodySchema = z
  .object({
    detail: z.string(),
    error: z.string(),
    fix: z.string(),
    error_code: z.string().optional(),
    hint: z.string().optional(),
    retryable: z.boolean().optional(),
    request_id: z.string().optional(),
  })
  .meta({ id: 'Error', description: '`detail` and `error` carry the same text; `fix` says what to do.' });

export const ValidationErrorBodySchema = z
  .object({
    detail: z.array(
      z.object({
        loc: z.array(z.string()),
        msg: z.string(),
        type: z.string(),
        input: z.unknown(),
        ctx: z.record(z.string(), z.unknown()),
      }),
    ),
    error: z.string(),
    fix: z.string(),
    error_code: z.string().optional().meta({
      description: 'Set when one rule refused the body before its fields were read, e.g. `body_key_invalid`.',
    }),
  })
  .meta({ id: 'ValidationError' });
