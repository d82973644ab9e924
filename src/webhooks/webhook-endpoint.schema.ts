import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { tenantOwned } from '../tenancy/tenant-owned.plugin';

export const ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];

/** One signing secret, encrypted at rest; a rolled-away secret signs until `expiresAt`. */
export interface StoredSecret {
  value: string;
  expiresAt: Date | null;
}

/** A URL that a platform project's events are sent to. */
@Schema(schemaOptions('webhook_endpoints', ['secrets']))
export class WebhookEndpoint {
  _id: Types.ObjectId;

  projectId: Types.ObjectId;

  @Prop({ type: String, required: true })
  url: string;

  @Prop({ type: String, default: null })
  description: string | null;

  /** `['*']`, or the event types sent to this endpoint. */
  @Prop({ type: [String], required: true })
  enabledEvents: string[];

  @Prop({ type: String, enum: ENDPOINT_STATUSES, default: 'enabled' })
  status: EndpointStatus;

  /** Why the service disabled the endpoint; null when enabled, or disabled by a caller. */
  @Prop({ type: String, default: null })
  disabledReason: string | null;

  /** The current secret first; each encrypted for this endpoint (FieldEncryption). */
  @Prop({ type: [MongooseSchema.Types.Mixed], required: true })
  secrets: StoredSecret[];

  /** When its deliveries started failing without a success since; null while they succeed. */
  @Prop({ type: Date, default: null })
  failingSince: Date | null;

  createdAt: Date;
  updatedAt: Date;
}

export const WebhookEndpointSchema = SchemaFactory.createForClass(WebhookEndpoint);
tenantOwned(WebhookEndpointSchema);

// A project's endpoints (the list, and the fan-out of each event).
WebhookEndpointSchema.index({ projectId: 1, _id: -1 });
