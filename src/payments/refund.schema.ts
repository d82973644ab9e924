import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { tenantOwned } from '../tenancy/tenant-owned.plugin';

/**
 * One refund of a payment, written before the payment's totals move. Its `_id` is unique: for a
 * refund sent with an `Idempotency-Key` it is `<project id>:<caller>:<key>`, so one key of one caller
 * in a project can stand for one refund only, whatever becomes of the request's idempotency record;
 * without a key it is a fresh id. The payment lists the refunds its totals include (`refundIds`),
 * changed in the same update as the totals, so applying a refund twice is impossible. A refund
 * written but not yet applied (its request stopped in between) is `pending`: its retry applies it, or
 * the payments' sweep applies it (the payment can still take it) or voids it (it cannot) once its
 * grace has passed; the audit entry of the refund waits for that, and names it only when the payment
 * lists it.
 */
export const REFUND_STATUSES = ['pending', 'applied', 'voided'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

@Schema({ ...schemaOptions('refunds'), timestamps: { createdAt: true, updatedAt: false } })
export class Refund {
  @Prop({ type: String, required: true })
  _id: string;

  /** The platform project that owns the record: added by `tenantOwned`, set on create. */
  projectId: Types.ObjectId;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  paymentId: Types.ObjectId;

  @Prop({ type: Number, required: true, min: 1 })
  amountMinor: number;

  /** The keyed fingerprint of the request (`requestFingerprint`); null without a key. */
  @Prop({ type: String, default: null })
  fingerprint: string | null;

  /** `pending` until the payment lists it (`applied`) or it can no longer be (`voided`). */
  @Prop({ type: String, enum: REFUND_STATUSES, default: 'pending' })
  status: RefundStatus;

  /** The account and the request that made it: the sweep applies it in their name. */
  @Prop({ type: String, default: null })
  accountId: string | null;

  @Prop({ type: String, default: null })
  requestId: string | null;

  @Prop({ type: String, default: null })
  idempotencyKey: string | null;

  createdAt: Date;
}

export const RefundSchema = SchemaFactory.createForClass(Refund);
tenantOwned(RefundSchema);

// A payment's refunds.
RefundSchema.index({ projectId: 1, paymentId: 1 });
// The sweep's refunds still pending after their grace, in every project.
RefundSchema.index({ status: 1, createdAt: 1 });
