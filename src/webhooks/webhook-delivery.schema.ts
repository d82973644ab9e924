import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { tenantOwned } from '../tenancy/tenant-owned.plugin';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One attempt of a delivery and how it went, kept in the delivery once its outcome is recorded. */
@Schema({ _id: false, versionKey: false })
export class WebhookAttempt {
  /** 1 for the first attempt of the delivery, then 2, 3, ... */
  @Prop({ type: Number, required: true })
  attempt: number;

  @Prop({ type: String, enum: DELIVERY_STATUSES, required: true })
  status: DeliveryStatus;

  @Prop({ type: Number, default: null })
  responseStatus: number | null;

  /** At most 1 KiB of the response's body. */
  @Prop({ type: String, default: null })
  responseBody: string | null;

  @Prop({ type: Number, default: null })
  durationMs: number | null;

  @Prop({ type: String, default: null })
  error: string | null;

  /** When it was claimed, right before it was sent. */
  @Prop({ type: Date, required: true })
  createdAt: Date;
}

const WebhookAttemptSchema = SchemaFactory.createForClass(WebhookAttempt);

/**
 * One event on its way to one endpoint, how its latest attempt went, and every attempt it had. The
 * event's JSON is kept here as sent (`payload`): every retry sends the same bytes, whatever the event
 * list keeps.
 */
@Schema(schemaOptions('webhook_deliveries', ['payload']))
export class WebhookDelivery {
  _id: Types.ObjectId;

  projectId: Types.ObjectId;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  endpointId: Types.ObjectId;

  @Prop({ type: String, required: true })
  eventId: string;

  @Prop({ type: String, required: true })
  eventType: string;

  @Prop({ type: String, required: true })
  payload: string;

  @Prop({ type: String, enum: DELIVERY_STATUSES, default: 'pending' })
  status: DeliveryStatus;

  /** Attempts made so far, the one under way included. */
  @Prop({ type: Number, default: 0 })
  attempt: number;

  /**
   * When the next attempt is due; null once the delivery succeeded or failed for good. While an
   * attempt is under way, the end of its claim on its claimer's clock: if its outcome is not recorded
   * by then, it is due, and taken over once the instance that finds it has watched it that long.
   */
  @Prop({ type: Date, default: null })
  nextAttemptAt: Date | null;

  /**
   * The fencing token of the claim of the attempt under way: written by the one write that claims it,
   * and every later write of that attempt (its outcome, giving it back) is guarded on it, so a sender
   * whose claim was taken over writes nothing. Null when no attempt is claimed.
   */
  @Prop({ type: String, default: null })
  claimToken: string | null;

  /** Until when the attempt under way (`attempt`) is claimed by the instance sending it; null when none is. */
  @Prop({ type: Date, default: null })
  claimedUntil: Date | null;

  /** When the attempt under way was claimed; null when none is. */
  @Prop({ type: Date, default: null })
  claimedAt: Date | null;

  /** The attempts whose outcome is recorded, oldest first (the one under way is not among them). */
  @Prop({ type: [WebhookAttemptSchema], default: [] })
  attempts: WebhookAttempt[];

  /** When the first attempt was due (the first wait of the schedule after the event). */
  @Prop({ type: Date, required: true })
  firstAttemptAt: Date;

  @Prop({ type: Number, default: null })
  responseStatus: number | null;

  /** At most 1 KiB of the latest response's body. */
  @Prop({ type: String, default: null })
  responseBody: string | null;

  @Prop({ type: Number, default: null })
  durationMs: number | null;

  @Prop({ type: String, default: null })
  error: string | null;

  createdAt: Date;
  updatedAt: Date;
}

export const WebhookDeliverySchema = SchemaFactory.createForClass(WebhookDelivery);
tenantOwned(WebhookDeliverySchema);

// One delivery of an event to an endpoint, however many times the fan-out runs.
WebhookDeliverySchema.index({ endpointId: 1, eventId: 1 }, { unique: true });
// An endpoint's deliveries, newest first.
WebhookDeliverySchema.index({ projectId: 1, endpointId: 1, _id: -1 });
// An event's deliveries, newest first (an object's timeline).
WebhookDeliverySchema.index({ projectId: 1, eventId: 1, _id: -1 });
// The deliveries waiting for an attempt, on every instance, soonest first (`due`); also serves the
// retention's sweep by status.
WebhookDeliverySchema.index({ status: 1, nextAttemptAt: 1 });
