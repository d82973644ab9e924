import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { schemaOptions } from '../../common/database/schema-options';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { USER_ROLES, type UserRole } from '../../common/decorators/roles.decorator';

export const USER_STATUSES = ['active'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

/** Fields never read but on purpose (`include`), and never serialised. */
export const USER_SECRET_FIELDS = ['passwordHash', 'totpSecret', 'totpPendingSecret', 'recoveryCodeHashes'] as const;

@Schema(schemaOptions('users', [...USER_SECRET_FIELDS]))
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
   * When the password last changed (or was reset), or a second factor was removed: bearer tokens
   * issued and sessions created before it are no longer accepted.
   */
  @Prop({ type: Date, default: null })
  credentialsChangedAt: Date | null;

  /** The TOTP secret (base32), encrypted at rest, once a first code turned it on. */
  @Prop({ type: String, default: null, select: false })
  totpSecret: string | null;

  /** A secret handed out for enrolment, encrypted, until a code from it turns TOTP on. */
  @Prop({ type: String, default: null, select: false })
  totpPendingSecret: string | null;

  @Prop({ type: Date, default: null })
  totpEnabledAt: Date | null;

  /**
   * The last TOTP time step accepted: a code of this step or an earlier one is refused (RFC 6238
   * §5.2), so an unused code of step T cannot follow one of step T+1.
   */
  @Prop({ type: Number, default: null })
  totpLastStep: number | null;

  /**
   * When a second factor was last added or removed: a session or token whose second factor was
   * proven before it counts as password-only (it never proved the factors the user has now).
   */
  @Prop({ type: Date, default: null })
  factorsChangedAt: Date | null;

  /** SHA-256 of each recovery code not used yet. */
  @Prop({ type: [String], default: undefined, select: false })
  recoveryCodeHashes?: string[];

  /**
   * When the user proved they read mail at `email` (the link mailed at signup); null until then.
   * Unverified users sign in, but neither invite nor move money.
   */
  @Prop({ type: Date, default: null })
  emailVerifiedAt: Date | null;

  createdAt: Date;
  updatedAt: Date;
}

export const UserSchema = SchemaFactory.createForClass(User);
