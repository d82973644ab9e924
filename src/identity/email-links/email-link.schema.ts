import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { schemaOptions } from '../../common/database/schema-options';

export const EMAIL_LINK_PURPOSES = ['password_reset', 'email_verification'] as const;
export type EmailLinkPurpose = (typeof EMAIL_LINK_PURPOSES)[number];

/**
 * A link mailed to a user (a password reset, an email verification). Only the SHA-256 of its random
 * token is kept; it expires, and it is used once (see EmailLinkUse).
 */
@Schema(schemaOptions('email_links', ['tokenHash']))
export class EmailLink {
  _id: Types.ObjectId;

  @Prop({ type: String, required: true, enum: EMAIL_LINK_PURPOSES })
  purpose: EmailLinkPurpose;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  userId: Types.ObjectId;

  /** The address it was mailed to: a verification proves this one, not a later email. */
  @Prop({ type: String, required: true })
  email: string;

  @Prop({ type: String, required: true })
  tokenHash: string;

  @Prop({ type: Date, required: true })
  expiresAt: Date;

  @Prop({ type: Date, default: null })
  usedAt: Date | null;

  createdAt: Date;
  updatedAt: Date;
}

export const EmailLinkSchema = SchemaFactory.createForClass(EmailLink);
EmailLinkSchema.index({ tokenHash: 1 }, { unique: true });
EmailLinkSchema.index({ userId: 1, purpose: 1 });
EmailLinkSchema.index({ expiresAt: 1 });

/**
 * A link's single use, as a document whose `_id` is the link's: inserting it is what uses the link.
 * Two requests with the same token race to the insert, and the unique `_id` lets one through, which
 * a guarded update on the link would not do on FerretDB.
 */
@Schema({ ...schemaOptions('email_link_uses'), timestamps: false })
export class EmailLinkUse {
  _id: Types.ObjectId;

  @Prop({ type: Date, required: true })
  at: Date;
}

export const EmailLinkUseSchema = SchemaFactory.createForClass(EmailLinkUse);
