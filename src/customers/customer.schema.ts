import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { tenantOwned } from '../tenancy/tenant-owned.plugin';
import { recordsEvents } from '../tenancy/outbox.plugin';

@Schema(schemaOptions('customers', ['SocialNumber']))
export class Customer {
  _id: Types.ObjectId;

  /** The platform project that owns the record: added by `tenantOwned`, set on create, never returned. */
  projectId: Types.ObjectId;

  /** Required through the API; null only for a customer created implicitly with a card. */
  @Prop({ type: String, default: null, trim: true })
  email: string | null;

  @Prop({ type: String, default: null })
  firstName: string | null;

  @Prop({ type: String, default: null })
  lastName: string | null;

  /** ISO 3166-1 alpha-2, upper case. */
  @Prop({ type: String, default: null })
  country: string | null;

  @Prop({ type: MongooseSchema.Types.Mixed, default: () => ({}) })
  address: Record<string, unknown>;

  @Prop({ type: String, default: null })
  phone: string | null;

  /**
   * Write-only: stored, never returned (no mapper copies it; toJSON drops it). Not `select: false`:
   * that adds a projection to findOneAndUpdate, which FerretDB does not support.
   */
  @Prop({ type: String, default: null })
  SocialNumber: string | null;

  @Prop({ type: Boolean, default: false })
  liveMode: boolean;

  @Prop({ type: Boolean, default: false })
  verified: boolean;

  @Prop({ type: Boolean, default: false })
  Taxable: boolean;

  @Prop({ type: Number, default: 0 })
  balance: number;

  /** Id of one of this customer's cards, or null. */
  @Prop({ type: String, default: null })
  defaultMethod: string | null;

  createdAt: Date;
  updatedAt: Date;
}

export const CustomerSchema = SchemaFactory.createForClass(Customer);
tenantOwned(CustomerSchema);
recordsEvents(CustomerSchema);

// A project's customers, newest first (the list); lookups by _id also carry the project.
CustomerSchema.index({ projectId: 1, _id: -1 });
