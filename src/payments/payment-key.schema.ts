import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { tenantOwned } from '../tenancy/tenant-owned.plugin';

/**
 * The `Idempotency-Key` a payment was created under, kept for as long as the key lives (24 hours).
 * Inserted before the payment, with the id the payment will have: the unique `_id`
 * (`<project id>:<caller>:<key>`) lets one request only ever stand for one payment id, and the
 * payments' own unique `_id` lets that id be created once. So a retry, even one that runs again
 * after the idempotency record was dropped, finds the payment instead of making a second.
 */
@Schema({ ...schemaOptions('payment_keys'), timestamps: { createdAt: true, updatedAt: false } })
export class PaymentKey {
  /** `<project id>:<caller>:<key>`; the project id has a fixed length, so the parts never run together. */
  @Prop({ type: String, required: true })
  _id: string;

  /** The platform project that owns the record: added by `tenantOwned`, set on create. */
  projectId: Types.ObjectId;

  /** The payment created (or to be created) under this key. */
  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  paymentId: Types.ObjectId;

  /** The keyed fingerprint of the request that used the key first: another request under it is 422. */
  @Prop({ type: String, required: true })
  fingerprint: string;

  createdAt: Date;
}

export const PaymentKeySchema = SchemaFactory.createForClass(PaymentKey);
tenantOwned(PaymentKeySchema);
