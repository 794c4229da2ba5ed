import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';

/**
 * The operator audit trail: who (the console session's name, or `api` for Bearer callers) did what
 * to which target, and when. Written before the action runs; its `detail` is set once more, from
 * "started" to the result, and never again.
 */
const operatorActionSchema = new Schema(
  {
    _id: { type: String, required: true },
    at: { type: Date, required: true },
    actor: { type: String, required: true },
    /** `schedule.pause`, `schedule.resume`, `schedule.run`, `market.resolve`, `skill.review`, `user.tier`, `tape.upload`, `tape.import`, … */
    action: { type: String, required: true },
    target: { type: String, required: true },
    /** One line on the outcome, e.g. the tier set or the error a run-now met. */
    detail: { type: String, default: null },
  },
  { collection: 'operator_actions', versionKey: false },
);
operatorActionSchema.index({ at: -1 });

export type OperatorActionRecord = SchemaRecord<typeof operatorActionSchema>;
export type OperatorActionModel = Model<OperatorActionRecord>;

export function operatorActionModel(conn: Connection): OperatorActionModel {
  return (
    (conn.models.OperatorAction as OperatorActionModel | undefined) ??
    conn.model<OperatorActionRecord>('OperatorAction', operatorActionSchema)
  );
}
