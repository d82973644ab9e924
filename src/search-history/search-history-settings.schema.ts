import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';

/** A user's search history settings in one account. Absent: recording, as for a user who never paused. */
@Schema(schemaOptions('search_history_settings'))
export class SearchHistorySettings {
  /** `<userId>:<accountId>`: one settings record per user and account, by construction. */
  @Prop({ type: String, required: true })
  _id: string;

  @Prop({ type: Types.ObjectId, required: true })
  userId: Types.ObjectId;

  @Prop({ type: Types.ObjectId, required: true })
  accountId: Types.ObjectId;

  @Prop({ type: Boolean, required: true, default: false })
  paused: boolean;

  createdAt: Date;
  updatedAt: Date;
}

export const SearchHistorySettingsSchema = SchemaFactory.createForClass(SearchHistorySettings);
SearchHistorySettingsSchema.index({ userId: 1 });
