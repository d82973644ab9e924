import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { tenantOwned } from '../tenancy/tenant-owned.plugin';
import { recordsEvents } from '../tenancy/outbox.plugin';

export const PAYMENT_STATUSES = [
  'requires_confirmation',
  'requires_payment_method',
  'succeeded',
  'failed',
  'refunded',
  'partially_refunded',
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Statuses a confirmation moves on from. */
export const CONFIRMABLE_STATUSES: readonly PaymentStatus[] = ['requires_confirmation', 'requires_payment_method'];
/** Statuses that still hold money to refund. */
export const REFUNDABLE_STATUSES: readonly PaymentStatus[] = ['succeeded', 'partially_refunded'];

const isInteger = { validator: Number.isSafeInteger, message: '{PATH} must be a whole number of minor units' };

/**
 * A payment. Money is kept as integer counts of the currency's minor units (cents for USD, yen for
 * JPY, fils for KWD), so sums and refunds are exact; the API speaks major units.
 */
@Schema(schemaOptions('payments'))
export class Payment {
  _id: Types.ObjectId;

  /** The platform project that owns the record: added by `tenantOwned`, set on create, never returned. */
  projectId: Types.ObjectId;

  @Prop({ type: Number, required: true, min: 1, validate: isInteger })
  amountMinor: number;

  /** ISO 4217, lower case. */
  @Prop({ type: String, required: true })
  currency: string;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  customer: Types.ObjectId;

  /** The payment's destination (the spec's spelling). */
  @Prop({ type: MongooseSchema.Types.ObjectId, default: null })
  reciver: Types.ObjectId | null;

  @Prop({ type: String, default: null })
  description: string | null;

  @Prop({ type: String, required: true, enum: PAYMENT_STATUSES })
  status: PaymentStatus;

  @Prop({ type: String, default: null })
  failureCode: string | null;

  /** The card charged (or declined) at confirmation. Not part of the response. */
  @Prop({ type: MongooseSchema.Types.ObjectId, default: null })
  card: Types.ObjectId | null;

  @Prop({ type: Number, required: true, default: 0, min: 0, validate: isInteger })
  amountRefundedMinor: number;

  /** The refunds `amountRefundedMinor` includes (ids of `refunds`), changed in the same update: each applies once. Absent on payments older than it. */
  @Prop({ type: [String], default: [] })
  refundIds?: string[];

  createdAt: Date;
  updatedAt: Date;
}

export const PaymentSchema = SchemaFactory.createForClass(Payment);
tenantOwned(PaymentSchema);
recordsEvents(PaymentSchema);

// A project's payments newest first, and the list filters.
PaymentSchema.index({ projectId: 1, _id: -1 });
PaymentSchema.index({ projectId: 1, customer: 1, _id: -1 });
PaymentSchema.index({ projectId: 1, status: 1, _id: -1 });
PaymentSchema.index({ projectId: 1, customer: 1, status: 1, _id: -1 });
