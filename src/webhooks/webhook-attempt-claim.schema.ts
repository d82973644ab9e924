import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { tenantOwned } from '../tenancy/tenant-owned.plugin';

/**
 * The claim of attempt n of one delivery. The unique (delivery, attempt number) index lets exactly
 * one instance insert it, on MongoDB and on FerretDB alike (where a guarded update is not atomic),
 * so exactly one instance sends attempt n.
 */
@Schema(schemaOptions('webhook_attempt_claims'))
export class WebhookAttemptClaim {
  _id: Types.ObjectId;

  projectId: Types.ObjectId;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  deliveryId: Types.ObjectId;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  endpointId: Types.ObjectId;

  /** 1 for the first attempt of the delivery, then 2, 3, ... */
  @Prop({ type: Number, required: true })
  attempt: number;

  /** Until when the claimer may be sending it; a claim past this whose delivery never moved to it is replaced. */
  @Prop({ type: Date, required: true })
  claimedUntil: Date;

  createdAt: Date;
  updatedAt: Date;
}

export const WebhookAttemptClaimSchema = SchemaFactory.createForClass(WebhookAttemptClaim);
tenantOwned(WebhookAttemptClaimSchema);

// One claimer of attempt n of a delivery, whichever instances try.
WebhookAttemptClaimSchema.index({ deliveryId: 1, attempt: 1 }, { unique: true });
// Deleted with their endpoint.
WebhookAttemptClaimSchema.index({ projectId: 1, endpointId: 1 });
