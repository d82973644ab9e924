import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import { schemaOptions } from '../../common/database/schema-options';

/** A WebAuthn credential (a passkey) of a user: its public key and the counter its signatures carry. */
@Schema({ ...schemaOptions('passkeys', ['publicKey']), timestamps: true })
export class Passkey {
  _id: Types.ObjectId;

  @Prop({ type: Types.ObjectId, required: true })
  userId: Types.ObjectId;

  /** The credential id the authenticator chose (base64url): how an assertion names its passkey. */
  @Prop({ type: String, required: true })
  credentialId: string;

  /** The COSE public key, base64url. Not secret, but of no use outside verification. */
  @Prop({ type: String, required: true, select: false })
  publicKey: string;

  /** The authenticator's signature counter at the last use; 0 for authenticators that keep none. */
  @Prop({ type: Number, required: true, default: 0 })
  counter: number;

  @Prop({ type: [String], default: [] })
  transports: string[];

  @Prop({ type: String, required: true })
  name: string;

  /** `multiDevice` for a synced passkey, `singleDevice` for one bound to its authenticator. */
  @Prop({ type: String, required: true })
  deviceType: string;

  @Prop({ type: Boolean, default: false })
  backedUp: boolean;

  @Prop({ type: Date, default: null })
  lastUsedAt: Date | null;

  createdAt: Date;
  updatedAt: Date;
}

export const PasskeySchema = SchemaFactory.createForClass(Passkey);
PasskeySchema.index({ credentialId: 1 }, { unique: true });
PasskeySchema.index({ userId: 1 });
