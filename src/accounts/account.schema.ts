import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';

export const ACCOUNT_TYPES = ['developer', 'company'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

/** The boundary of people: members, roles and invitations belong to one account. */
@Schema(schemaOptions('accounts'))
export class Account {
  _id: Types.ObjectId;

  @Prop({ type: String, required: true, trim: true })
  name: string;

  @Prop({ type: String, required: true, enum: ACCOUNT_TYPES })
  type: AccountType;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  ownerId: Types.ObjectId;

  /**
   * How many ownership transfers the account has had (missing: none): the fence of every transfer's
   * writes (see OwnershipTransfer). Written only with a greater version than the stored one.
   */
  @Prop({ type: Number, default: undefined })
  ownerVersion?: number;

  /** Chosen before the project exists, so the account never points at nothing for long. */
  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  defaultProjectId: Types.ObjectId;

  /**
   * The owner requires a second factor: sessions signed in with a password alone are refused this
   * account's data (403 `mfa_required`).
   */
  @Prop({ type: Boolean, default: false })
  requireMfa: boolean;

  /** Set on the one account that `npm run migrate` made for single-tenant records. */
  @Prop({ type: Boolean, default: undefined })
  migrated?: boolean;

  createdAt: Date;
  updatedAt: Date;
}

export const AccountSchema = SchemaFactory.createForClass(Account);
AccountSchema.index({ migrated: 1 }, { sparse: true });
