import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { Types } from 'mongoose';
import { tenantOwned } from '../tenancy/tenant-owned.plugin';
import { recordsEvents } from '../tenancy/outbox.plugin';

@Schema(schemaOptions('clients'))
export class Client {
  _id: Types.ObjectId;

  /** The platform project that owns the record: added by `tenantOwned`, set on create, never returned. */
  projectId: Types.ObjectId;

  @Prop({ type: String, required: true, trim: true })
  name: string;

  /** Not unique: the contract does not make it so. */
  @Prop({ type: String, required: true, trim: true })
  email: string;

  @Prop({ type: String, default: null })
  phone: string | null;

  @Prop({ type: [String], default: [] })
  projectIds: string[];

  /**
   * Set while a hard delete is checking for channels: a channel created meanwhile sees it and
   * withdraws, so no channel is left pointing at a deleted client. Older than a minute, it belongs
   * to a delete whose server stopped, and is ignored.
   */
  @Prop({ type: Date, default: null })
  deletingAt: Date | null;

  /** Set by a soft delete, cleared by a restore; null while the client is live. */
  @Prop({ type: Date, default: null })
  deletedAt: Date | null;

  createdAt: Date;
  updatedAt: Date;
}

export const ClientSchema = SchemaFactory.createForClass(Client);
tenantOwned(ClientSchema);
recordsEvents(ClientSchema);

// Every query is inside one platform project. Lists filter by deletedAt and page newest first;
// lookups by id (isLive included) also check deletedAt.
ClientSchema.index({ projectId: 1, deletedAt: 1, _id: -1 });
