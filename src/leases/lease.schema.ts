import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { schemaOptions } from '../common/database/schema-options';

/**
 * A short lease on one thing (a payment), held while it changes. The unique `_id` (`payment:<id>`)
 * makes taking it atomic on every supported database and across every instance.
 *
 * Not tenant-owned, on purpose: the ids inside the keys are ObjectIds, unique across every project,
 * so a lease cannot collide with another tenant's; it holds no tenant data (a key, a holder token and
 * an expiry) and is only ever taken after the record was found in the caller's project.
 */
@Schema({ ...schemaOptions('leases'), timestamps: false })
export class Lease {
  @Prop({ type: String, required: true })
  _id: string;

  /** Identifies the holder, so only it releases the lease. */
  @Prop({ type: String, required: true })
  holder: string;

  /** After this the lease counts as abandoned (its holder crashed) and may be taken over. */
  @Prop({ type: Date, required: true })
  expiresAt: Date;

  /**
   * A fenced lease's token (`Leases.tryWithFencedLease`): 1 when first taken, one more at every
   * take-over, never reset (a fenced lease is released by expiring it, not by removing it). Absent
   * on the leases that `withLease` and `hold` insert and remove.
   */
  @Prop({ type: Number })
  fence?: number;
}

export const LeaseSchema = SchemaFactory.createForClass(Lease);
