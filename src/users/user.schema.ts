import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { HydratedDocument, Schema as MongooseSchema, Types } from 'mongoose';
import { USER_ROLES, type UserRole } from '../common/decorators/roles.decorator';

export const USER_STATUSES = ['active'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

@Schema(schemaOptions('users', ['passwordHash']))
export class User {
  _id: Types.ObjectId;

  @Prop({ type: String, required: true, trim: true })
  firstName: string;

  @Prop({ type: String, required: true, trim: true })
  lastName: string;

  @Prop({ type: String, default: '' })
  userName: string;

  @Prop({ type: String, required: true, unique: true, lowercase: true, trim: true })
  email: string;

  @Prop({ type: String, required: true, select: false })
  passwordHash: string;

  @Prop({ type: String, required: true, enum: USER_ROLES })
  role: UserRole;

  @Prop({ type: String, required: true, enum: USER_STATUSES, default: 'active' })
  status: UserStatus;

  @Prop({ type: Number, default: null })
  phoneNumber: number | null;

  @Prop({ type: String, default: null })
  avatar: string | null;

  @Prop({ type: MongooseSchema.Types.Mixed, default: null })
  address: Record<string, unknown> | null;

  @Prop({ type: MongooseSchema.Types.Mixed, default: null })
  defaultCompany: unknown;

  createdAt: Date;
  updatedAt: Date;
}

export type UserDocument = HydratedDocument<User>;
export const UserSchema = SchemaFactory.createForClass(User);

/**
 * One document marks that the first account of an empty system has been taken, so two racing
 * "first" signups cannot both choose their role.
 */
@Schema({ collection: 'system_flags', versionKey: false })
export class SystemFlag {
  @Prop({ type: String, required: true })
  _id: string;

  @Prop({ type: Date, default: () => new Date() })
  setAt: Date;
}
export const SystemFlagSchema = SchemaFactory.createForClass(SystemFlag);
