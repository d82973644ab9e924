import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { USER_ROLES, type UserRole } from '../common/decorators/roles.decorator';
import { schemaOptions } from '../common/database/schema-options';

/** A user's role in one account. Read on every authenticated request, by its unique index. */
@Schema(schemaOptions('memberships'))
export class Membership {
  _id: Types.ObjectId;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  accountId: Types.ObjectId;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  userId: Types.ObjectId;

  @Prop({ type: String, required: true, enum: USER_ROLES })
  role: UserRole;

  /**
   * Mirrors `Account.ownerId`, so the per-request check needs this one document: the owner holds
   * every admin right whatever their role.
   */
  @Prop({ type: Boolean, required: true, default: false })
  owner: boolean;

  /** The owner version of the last ownership transfer that wrote `owner` here (missing: none); a transfer of a lower version writes it no more. */
  @Prop({ type: Number, default: undefined })
  ownerVersion?: number;

  createdAt: Date;
  updatedAt: Date;
}

export const MembershipSchema = SchemaFactory.createForClass(Membership);
MembershipSchema.index({ accountId: 1, userId: 1 }, { unique: true });
MembershipSchema.index({ userId: 1, createdAt: 1 });
