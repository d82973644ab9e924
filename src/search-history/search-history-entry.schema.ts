import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';

export const SEARCH_SURFACES = ['projects', 'customers', 'payments'] as const;
export type SearchSurface = (typeof SEARCH_SURFACES)[number];

/**
 * One search a user ran in one account. `createdAt` is when it was last run, not first: a repeat
 * moves it there, so the newest-first order, the 100-entry cap and the 90-day expiry (a TTL index on
 * `createdAt`, or the hourly sweep) all count from the last use.
 */
@Schema({ ...schemaOptions('search_history'), timestamps: false })
export class SearchHistoryEntry {
  _id: Types.ObjectId;

  @Prop({ type: Types.ObjectId, required: true })
  userId: Types.ObjectId;

  @Prop({ type: Types.ObjectId, required: true })
  accountId: Types.ObjectId;

  @Prop({ type: String, required: true, enum: SEARCH_SURFACES })
  surface: SearchSurface;

  @Prop({ type: String, default: '' })
  query: string;

  @Prop({ type: MongooseSchema.Types.Mixed, default: {} })
  filters: Record<string, string>;

  /** The search's identity (surface, query ignoring case and spacing, filters): one entry per search, by a unique index. */
  @Prop({ type: String, required: true })
  key: string;

  @Prop({ type: Date, required: true })
  createdAt: Date;
}

export const SearchHistoryEntrySchema = SchemaFactory.createForClass(SearchHistoryEntry);
SearchHistoryEntrySchema.index({ userId: 1, accountId: 1, key: 1 }, { unique: true });
SearchHistoryEntrySchema.index({ userId: 1, accountId: 1, createdAt: -1 });
