import type { InferSchemaType } from 'mongoose';

/**
 * The record type of a model, derived from its schema (mongoose's InferSchemaType) so no model
 * declares its fields twice. InferSchemaType leaves a path without `required` or a non-null default
 * optional (`?: T | null`); mongoose writes every default (`default: null` included) when it creates a
 * document, so a stored record has the path: `T | null`. `TOverrides` replaces the few paths the
 * inference cannot type (a Mixed path is `any`, a path with no default really may be absent); each
 * model says why next to its override.
 */
export type SchemaRecord<TSchema, TOverrides extends object = Record<never, never>> = Override<
  Required<InferSchemaType<TSchema>>,
  TOverrides
>;

/** `T` with the paths of `U` in place of its own. */
export type Override<T, U extends object> = Flat<Omit<T, keyof U> & U>;

/** Every path set and not null: a subdocument written whole, whose shorthand paths (`Number`) all hold a value. */
export type Filled<T> = { [K in keyof T]-?: Exclude<T[K], null | undefined> };

type Flat<T> = { [K in keyof T]: T[K] };
