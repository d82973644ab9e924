import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { API_NAMES, type ApiName } from '../tenancy/api-names';

/** The boundary of data: every tenant record belongs to one platform project of one account. */
@Schema(schemaOptions('platform_projects'))
export class PlatformProject {
  _id: Types.ObjectId;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  accountId: Types.ObjectId;

  @Prop({ type: String, required: true, trim: true })
  name: string;

  @Prop({ type: [String], enum: API_NAMES, default: () => [...API_NAMES] })
  enabledApis: ApiName[];

  @Prop({ type: Boolean, required: true, default: false })
  isDefault: boolean;

  /**
   * Set on every project made since the events and webhooks APIs exist (they are enabled by default);
   * `npm run migrate` enables both on a project without it, once, so a later choice to disable them stands.
   */
  @Prop({ type: Boolean, default: true })
  eventApisOffered: boolean;

  createdAt: Date;
  updatedAt: Date;
}

export const PlatformProjectSchema = SchemaFactory.createForClass(PlatformProject);
// Requests resolve their project by (account, id) or the account's default: one indexed read each.
PlatformProjectSchema.index({ accountId: 1, _id: 1 });
PlatformProjectSchema.index({ accountId: 1, isDefault: 1 });
