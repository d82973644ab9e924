import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import { schemaOptions } from '../../common/database/schema-options';

export const CEREMONIES = ['registration', 'authentication'] as const;
export type Ceremony = (typeof CEREMONIES)[number];

/** A challenge handed out for one ceremony: `_id` is the challenge itself (base64url). Swept once stale. */
@Schema({ ...schemaOptions('passkey_challenges'), timestamps: { createdAt: true, updatedAt: false } })
export class PasskeyChallenge {
  @Prop({ type: String, required: true })
  _id: string;

  @Prop({ type: String, required: true, enum: CEREMONIES })
  ceremony: Ceremony;

  /** The signed-in user a registration is for; null for a sign-in, where the passkey names its user. */
  @Prop({ type: Types.ObjectId, default: null })
  userId: Types.ObjectId | null;

  createdAt: Date;
}

export const PasskeyChallengeSchema = SchemaFactory.createForClass(PasskeyChallenge);

/**
 * A challenge that was answered: claimed by an insert against the unique `_id` (the challenge),
 * which MongoDB and FerretDB both apply atomically, so of two answers to one challenge, at once or
 * one after the other, one counts. Swept with the challenges.
 */
@Schema({ ...schemaOptions('passkey_challenge_uses'), timestamps: { createdAt: true, updatedAt: false } })
export class PasskeyChallengeUse {
  @Prop({ type: String, required: true })
  _id: string;

  createdAt: Date;
}

export const PasskeyChallengeUseSchema = SchemaFactory.createForClass(PasskeyChallengeUse);
