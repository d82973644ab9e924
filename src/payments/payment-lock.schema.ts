import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';

/**
 * A short lease on one payment, held while its status or refunded total changes. The unique `_id`
 * (the payment's id) makes taking it atomic on every supported database.
 *
 * Not tenant-owned, on purpose: a payment's ObjectId is unique across every project, so a lease
 * keyed by it cannot collide with another tenant's; it holds no tenant data (only the id, a holder
 * token and an expiry) and is only ever taken after the payment was found in the caller's project.
 */
@Schema({ collection: 'payment_locks', versionKey: false })
export class PaymentLock {
  @Prop({ type: String, required: true })
  _id: string;

  /** Identifies the holder, so only it releases the lease. */
  @Prop({ type: String, required: true })
  holder: string;

  /** After this the lease counts as abandoned (its holder crashed) and may be taken over. */
  @Prop({ type: Date, required: true })
  expiresAt: Date;
}

export const PaymentLockSchema = SchemaFactory.createForClass(PaymentLock);
