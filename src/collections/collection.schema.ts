import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { HydratedDocument, Types } from 'mongoose';

@Schema({ collection: 'collections', timestamps: true, versionKey: false })
export class Collection {
  _id: Types.ObjectId;

  @Prop({ type: String, required: true, trim: true })
  name: string;

  @Prop({ type: String, default: null })
  description: string | null;

  @Prop({ type: Number, default: null })
  numberOfClients: number | null;

  @Prop({ type: Number, default: null })
  numberOfUsers: number | null;

  @Prop({ type: String, default: null })
  usage: string | null;

  @Prop({ type: Number, default: null })
  pricing: number | null;

  @Prop({ type: [Number], default: [] })
  endpoints: number[];

  /** Set by a soft delete, cleared by a restore; null while the collection is live. */
  @Prop({ type: Date, default: null })
  deletedAt: Date | null;

  createdAt: Date;
  updatedAt: Date;
}

export type CollectionDocument = HydratedDocument<Collection>;
export const CollectionSchema = SchemaFactory.createForClass(Collection);

// Lists filter by deletedAt and page newest first; lookups by id also check deletedAt.
CollectionSchema.index({ deletedAt: 1, _id: -1 });
