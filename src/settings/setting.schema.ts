import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';

/**
 * One fact about the whole deployment that operators' commands record and the service reads at
 * start (`reencrypt`: when `npm run reencrypt` last ran to its end). Not tenant-owned: it describes
 * the database, not an account's data.
 */
@Schema(schemaOptions('settings'))
export class Setting {
  @Prop({ type: String, required: true })
  _id: string;

  @Prop({ type: MongooseSchema.Types.Mixed, required: true })
  value: unknown;

  createdAt: Date;
  updatedAt: Date;
}

export const SettingSchema = SchemaFactory.createForClass(Setting);
