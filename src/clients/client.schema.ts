import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { HydratedDocument, Types } from 'mongoose';

@Schema({ collection: 'clients', timestamps: true, versionKey: false })
export class Client {
  _id: Types.ObjectId;

  @Prop({ type: String, required: true, trim: true })
  name: string;

  /** Not unique: the contract does not make it so. */
  @Prop({ type: String, required: true, trim: true })
  email: string;

  @Prop({ type: String, default: null })
  phone: string | null;

  @Prop({ type: [String], default: [] })
  projectIds: string[];

  /** Set by a soft delete, cleared by a restore; null while the client is live. */
  @Prop({ type: Date, default: null })
  deletedAt: Date | null;

  createdAt: Date;
  updatedAt: Date;
}

export type ClientDocument = HydratedDocument<Client>;
export const ClientSchema = SchemaFactory.createForClass(Client);

// Lists filter by deletedAt and page newest first; lookups by id (isLive included) also check deletedAt.
ClientSchema.index({ deletedAt: 1, _id: -1 });
