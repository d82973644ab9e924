import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { USER_ROLES, type UserRole } from '../common/decorators/roles.decorator';
import { schemaOptions } from '../common/database/schema-options';

export const INVITATION_STATUSES = ['pending', 'accepted', 'revoked'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

/** An invitation into an account. Only the SHA-256 of its token is kept: the token is shown once. */
@Schema(schemaOptions('invitations', ['tokenHash']))
export class Invitation {
  _id: Types.ObjectId;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  accountId: Types.ObjectId;

  /** Lower case: accepting compares emails ignoring case. */
  @Prop({ type: String, required: true, lowercase: true, trim: true })
  email: string;

  @Prop({ type: String, required: true, enum: USER_ROLES })
  role: UserRole;

  @Prop({ type: String, required: true, enum: INVITATION_STATUSES, default: 'pending' })
  status: InvitationStatus;

  @Prop({ type: String, required: true })
  tokenHash: string;

  @Prop({ type: Date, required: true })
  expiresAt: Date;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  invitedBy: Types.ObjectId;

  @Prop({ type: MongooseSchema.Types.ObjectId, default: null })
  acceptedBy: Types.ObjectId | null;

  createdAt: Date;
  updatedAt: Date;
}

export const InvitationSchema = SchemaFactory.createForClass(Invitation);
InvitationSchema.index({ tokenHash: 1 }, { unique: true });
InvitationSchema.index({ accountId: 1, status: 1, email: 1 });
