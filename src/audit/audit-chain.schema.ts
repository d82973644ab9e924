import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { schemaOptions } from '../common/database/schema-options';

/**
 * Where an account's chain ends and starts, kept beside its entries: the head (the newest entry's
 * number and hash) lets `verify` see entries removed from the end, which leave a chain that is valid
 * as far as it goes; the anchor (the oldest kept entry's number and the hash before it, moved by
 * retention only) lets it see entries removed from the start.
 */
@Schema({ ...schemaOptions('audit_chains'), timestamps: false })
export class AuditChain {
  /** The account's id. */
  @Prop({ type: String, required: true })
  _id: string;

  @Prop({ type: Number, required: true })
  headSequence: number;

  @Prop({ type: String, required: true })
  headHash: string;

  /**
   * The number the account's entries start at, and the hash the first one follows; null for an
   * account whose chain was first seen after retention had run (its oldest entry then anchors it).
   */
  @Prop({ type: Number, default: null })
  anchorSequence: number | null;

  @Prop({ type: String, default: null })
  anchorPreviousHash: string | null;
}

export const AuditChainSchema = SchemaFactory.createForClass(AuditChain);
