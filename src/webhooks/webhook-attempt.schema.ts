import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { tenantOwned } from '../tenancy/tenant-owned.plugin';
import { DELIVERY_STATUSES, type DeliveryStatus } from './webhook-delivery.schema';

/** Attempts a delivery lists, the latest: a schedule's worth, and a few retries asked for. */
export const ATTEMPTS_LISTED = 20;

/**
 * One attempt of one delivery, kept with its outcome. It is also the attempt's claim: the unique
 * (delivery, attempt number) index lets exactly one instance insert attempt n, on MongoDB and on
 * FerretDB alike, so exactly one instance sends it. `pending` until its outcome is recorded.
 */
@Schema(schemaOptions('webhook_attempts'))
export class WebhookAttempt {
  _id: Types.ObjectId;

  projectId: Types.ObjectId;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  deliveryId: Types.ObjectId;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  endpointId: Types.ObjectId;

  /** 1 for the first attempt of the delivery, then 2, 3, ... */
  @Prop({ type: Number, required: true })
  attempt: number;

  @Prop({ type: String, enum: DELIVERY_STATUSES, default: 'pending' })
  status: DeliveryStatus;

  /** Until when the claiming instance may be sending it: past this, with no outcome, it was abandoned. */
  @Prop({ type: Date, required: true })
  claimedUntil: Date;

  @Prop({ type: Number, default: null })
  responseStatus: number | null;

  /** At most 1 KiB of the response's body. */
  @Prop({ type: String, default: null })
  responseBody: string | null;

  @Prop({ type: Number, default: null })
  durationMs: number | null;

  @Prop({ type: String, default: null })
  error: string | null;

  createdAt: Date;
  updatedAt: Date;
}

export const WebhookAttemptSchema = SchemaFactory.createForClass(WebhookAttempt);
tenantOwned(WebhookAttemptSchema);

// The claim: one attempt n of a delivery, whichever instance tries to make it.
WebhookAttemptSchema.index({ deliveryId: 1, attempt: 1 }, { unique: true });
// An endpoint's attempts, for its deliveries list and for deleting them with it.
WebhookAttemptSchema.index({ projectId: 1, endpointId: 1 });
