import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { Types } from 'mongoose';
import { tenantOwned } from '../tenancy/tenant-owned.plugin';

/**
 * `unstored`: the request ran and was answered, but its answer could not be stored; its key answers
 * 409 until it expires, never runs again.
 */
export const IDEMPOTENCY_STATES = ['in_progress', 'completed', 'unstored'] as const;
export type IdempotencyState = (typeof IDEMPOTENCY_STATES)[number];

/**
 * One POST that carried an `Idempotency-Key`: its fingerprint while it runs, then the answer it
 * got, so a retry with the same key gets the same answer without running again. Owned by the
 * platform project the request acted in: keys are per project and caller.
 */
@Schema(schemaOptions('idempotency_keys', ['fingerprint', 'responseBody']))
export class IdempotencyRecord {
  _id: Types.ObjectId;

  /** The platform project that owns the record: added by `tenantOwned`, set on create, never returned. */
  projectId: Types.ObjectId;

  /** Whose key and for which route: `user:<user id> POST /api/v1/payments` (or `key:<API key id> ...`). */
  @Prop({ type: String, required: true })
  scope: string;

  @Prop({ type: String, required: true })
  key: string;

  /** Keyed hash (HMAC) of method, URL and canonical body: the same key with another request is refused. */
  @Prop({ type: String, required: true })
  fingerprint: string;

  @Prop({ type: String, required: true, enum: IDEMPOTENCY_STATES, default: 'in_progress' })
  state: IdempotencyState;

  @Prop({ type: Number, default: null })
  statusCode: number | null;

  /** The response body as JSON text (kept as text, so any JSON the route answered is stored as is). */
  @Prop({ type: String, default: null })
  responseBody: string | null;

  createdAt: Date;
  updatedAt: Date;
}

export const IdempotencyRecordSchema = SchemaFactory.createForClass(IdempotencyRecord);

tenantOwned(IdempotencyRecordSchema);

// One record per project, caller/route and key; decides which of concurrent retries runs.
IdempotencyRecordSchema.index({ projectId: 1, scope: 1, key: 1 }, { unique: true });
// The TTL index on createdAt is created by IdempotencyStore where the database supports it.
