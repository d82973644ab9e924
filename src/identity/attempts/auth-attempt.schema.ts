import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { schemaOptions } from '../../common/database/schema-options';
import { Types } from 'mongoose';

/**
 * `signup_refused`: a signup answered with a 4xx (a taken email, a bad invitation), counted apart.
 * `mail`: a password reset or verification mail asked for (to `email`, by `client`).
 * `passkey_options`: a passkey ceremony started (a challenge written) by `client`.
 * `code`: a second-factor code offered for the user of `email`, from any address.
 */
export const ATTEMPT_KINDS = ['login', 'signup', 'signup_refused', 'mail', 'passkey_options', 'code'] as const;
export type AttemptKind = (typeof ATTEMPT_KINDS)[number];

/**
 * One attempt (a login, a signup, a mail, passkey options). Attempts are counted by inserting one
 * document each, then counting: an insert is atomic on MongoDB and FerretDB alike, so concurrent
 * attempts cannot all slip under the limit (a counter update would be a read-modify-write on
 * FerretDB). Shared by every instance.
 */
@Schema({ ...schemaOptions('auth_attempts'), timestamps: false })
export class AuthAttempt {
  _id: Types.ObjectId;

  @Prop({ type: String, required: true, enum: ATTEMPT_KINDS })
  kind: AttemptKind;

  /** The target email of a login or a mail, lower case; null for a signup, passkey options, or a passkey naming no user. */
  @Prop({ type: String, default: null })
  email: string | null;

  /** The client address (behind a trusted proxy, the forwarded one). */
  @Prop({ type: String, required: true })
  client: string;

  @Prop({ type: Date, required: true })
  at: Date;
}

export const AuthAttemptSchema = SchemaFactory.createForClass(AuthAttempt);
AuthAttemptSchema.index({ kind: 1, email: 1, at: 1 });
AuthAttemptSchema.index({ kind: 1, client: 1, at: 1 });
