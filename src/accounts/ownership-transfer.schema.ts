import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';

/**
 * One transfer of an account's ownership, claimed before any of its writes: its `_id`
 * (`<account id>:<version>`) takes the account's next owner version, so of two transfers that read
 * the same version only one inserts its claim (a unique `_id` is atomic on MongoDB and FerretDB
 * alike). Until `completedAt` is set, the transfer may be half-done: it is finished on start and by
 * the account's next transfer.
 */
@Schema(schemaOptions('ownership_transfers'))
export class OwnershipTransfer {
  @Prop({ type: String, required: true })
  _id: string;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  accountId: Types.ObjectId;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  from: Types.ObjectId;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  to: Types.ObjectId;

  /** The account's owner version this transfer writes: every one of its writes is fenced by it. */
  @Prop({ type: Number, required: true })
  version: number;

  /** When its writes were all made (or it was given up: its new owner had left); null while it may be half-done. */
  @Prop({ type: Date, default: null })
  completedAt: Date | null;

  /** `transferred`, or `abandoned` when the new owner was no member by the time it ran. */
  @Prop({ type: String, default: null })
  outcome: 'transferred' | 'abandoned' | null;

  createdAt: Date;
  updatedAt: Date;
}

export const OwnershipTransferSchema = SchemaFactory.createForClass(OwnershipTransfer);
// The repair on start reads the unfinished ones; a transfer, its account's.
OwnershipTransferSchema.index({ completedAt: 1, accountId: 1 });
