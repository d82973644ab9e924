import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { Schema as MongooseSchema, Types } from 'mongoose';
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

  /**
   * The role asked for at signup (and, for users of the single-tenant build, their only role).
   * A response shows the role in the account it concerns instead.
   */
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

  /** The account a login acts in when it names none (the account made or joined at signup). */
  @Prop({ type: String, default: null })
  defaultCompany: string | null;

  /**
   * When the user proved they read mail at `email` (the link mailed at signup); null until then.
   * Unverified users sign in, but neither invite nor move money.
   */
  @Prop({ type: Date, default: null })
  emailVerifiedAt: Date | null;

  /** When the password last changed (a reset): what was issued for the user before it no longer counts. */
  @Prop({ type: Date, default: null })
  credentialsChangedAt: Date | null;

  createdAt: Date;
  updatedAt: Date;
}

export const UserSchema = SchemaFactory.createForClass(User);

