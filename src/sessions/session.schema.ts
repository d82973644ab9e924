import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';

export const ASSURANCES = ['password', 'mfa'] as const;
export type Assurance = (typeof ASSURANCES)[number];

/**
 * A dashboard session. The cookie holds a random token; only its SHA-256 is stored, so a copy of
 * the database signs no one in. `_id` is the session's public id (the list, ending one).
 */
@Schema({ ...schemaOptions('sessions', ['tokenHash']), timestamps: false })
export class Session {
  _id: Types.ObjectId;

  /** SHA-256 (hex) of the cookie's token: the one lookup of every request. */
  @Prop({ type: String, required: true, select: false })
  tokenHash: string;

  @Prop({ type: Types.ObjectId, required: true })
  userId: Types.ObjectId;

  /** The account the session acts in, as an access token's `acc` (null for a user with none). */
  @Prop({ type: String, default: null })
  accountId: string | null;

  /**
   * A copy of the account's `requireMfa`, kept by the account's change event and checked again after
   * the insert (SessionsService.open), so a request needs no read of the account.
   */
  @Prop({ type: Boolean, default: false })
  accountRequiresMfa: boolean;

  /** When this token was made: a sign-in, or a change of assurance that replaced the token. */
  @Prop({ type: Date, required: true })
  createdAt: Date;

  /** When the user signed in: the absolute timeout counts from here, across replaced tokens. */
  @Prop({ type: Date, required: true })
  signedInAt: Date;

  /** Moved at most once a minute: the idle timeout counts from here. */
  @Prop({ type: Date, required: true })
  lastSeenAt: Date;

  @Prop({ type: String, default: null })
  ip: string | null;

  @Prop({ type: String, default: null })
  userAgent: string | null;

  @Prop({ type: String, required: true, enum: ASSURANCES })
  assurance: Assurance;

  /** When a second factor was last proven in this session (sign-in or step-up). */
  @Prop({ type: Date, default: null })
  mfaAt: Date | null;

  /** When the password was last proven in this session (a password sign-in or a step-up with it): a step-up action's proof for a user with no factor. */
  @Prop({ type: Date, default: null })
  passwordAt: Date | null;

  /**
   * The user's `credentialsChangedAt` (ms; 0 never) as read when this session's proof was checked: the
   * session is refused once it differs, so one opened by a sign-in that read the old password while a
   * reset ran ends too. Null in sessions from before it was kept (their `createdAt` is compared).
   */
  @Prop({ type: Number, default: null })
  credentialsAt: number | null;
}

export const SessionSchema = SchemaFactory.createForClass(Session);
SessionSchema.index({ tokenHash: 1 }, { unique: true });
SessionSchema.index({ userId: 1 });
SessionSchema.index({ accountId: 1 });
