import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { tenantOwned } from '../tenancy/tenant-owned.plugin';

/**
 * One refund of a payment, written before the payment's totals move. Its `_id` is unique: for a
 * refund sent with an `Idempotency-Key` it is `<project id>:<caller>:<key>`, so one key of one caller
 * in a project can stand for one refund only, whatever becomes of the request's idempotency record;
 * without a key it is a fresh id. The payment lists the refunds its totals include (`refundIds`),
 * changed in the same update as the totals, so applying a refund twice is impossible and a refund
 * written but not yet applied (its request stopped in between) is applied by its retry.
 */
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

  createdAt: Date;
}

export const RefundSchema = SchemaFactory.createForClass(Refund);
tenantOwned(RefundSchema);

// A payment's refunds.
RefundSchema.index({ projectId: 1, paymentId: 1 });
