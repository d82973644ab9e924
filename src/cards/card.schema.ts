import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { tenantOwned } from '../tenancy/tenant-owned.plugin';
import { recordsEvents } from '../tenancy/outbox.plugin';
import {
  CARD_BRANDS,
  CARD_FAILURE_CODES,
  CARD_FUNDING,
  type CardBrand,
  type CardFailureCode,
  type CardFunding,
} from './test-cards';

/**
 * A saved test card. The card number and the CVC are never stored: only what can be shown (brand,
 * funding, country, last4, expiry) and a keyed hash of the number.
 */
@Schema(schemaOptions('cards', ['failureCode']))
export class Card {
  _id: Types.ObjectId;

  /** The platform project that owns the record: added by `tenantOwned`, set on create, never returned. */
  projectId: Types.ObjectId;

  /** Id of the owning customer: an ObjectId, the type of `customers._id` and of `payments.customer`. */
  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  customer: Types.ObjectId;

  @Prop({ type: String, required: true, enum: CARD_BRANDS })
  brand: CardBrand;

  @Prop({ type: String, required: true, enum: CARD_FUNDING })
  funding: CardFunding;

  @Prop({ type: String, required: true })
  country: string;

  @Prop({ type: String, required: true })
  last4: string;

  @Prop({ type: Number, required: true, min: 1, max: 12 })
  expMonth: number;

  @Prop({ type: Number, required: true })
  expYear: number;

  /**
   * HMAC-SHA256 of the normalised number with its account's key (derived from the finance key): the
   * same number gives the same value within an account, and another value in another account.
   */
  @Prop({ type: String, required: true })
  fingerprint: string;

  /** Why a charge on this test card fails (from the test-card table); null for cards that charge. Internal. */
  @Prop({ type: String, enum: [...CARD_FAILURE_CODES, null], default: null })
  failureCode: CardFailureCode | null;

  createdAt: Date;
  updatedAt: Date;
}

export const CardSchema = SchemaFactory.createForClass(Card);
tenantOwned(CardSchema);
recordsEvents(CardSchema);

// A customer's cards in a project, newest first (list, cascade delete, ownership lookups).
CardSchema.index({ projectId: 1, customer: 1, _id: -1 });
