import { Injectable, type Logger } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model, Types } from 'mongoose';
import { TenantRecords } from '../tenancy/tenant-records';
import type { TenantScope } from '../tenancy/tenant-scope';
import { PaymentKey } from './payment-key.schema';

/** The payments' `Idempotency-Key` records: the only code that reads or writes them. */
@Injectable()
export class PaymentKeysRepository {
  private readonly records: TenantRecords<PaymentKey>;

  constructor(@InjectModel(PaymentKey.name) model: Model<PaymentKey>) {
    this.records = new TenantRecords(model);
  }

  find(scope: TenantScope, id: string): Promise<PaymentKey | null> {
    return this.records.findOne(scope, { _id: id });
  }

  /** Claims the key for the payment id; a key already claimed is a duplicate-key error. */
  async insert(
    scope: TenantScope,
    key: { _id: string; paymentId: Types.ObjectId; fingerprint: string },
  ): Promise<void> {
    await this.records.insert(scope, key);
  }

  /** Drops an expired claim, only while it is still the one read (its `createdAt`). */
  async deleteExpired(scope: TenantScope, key: PaymentKey): Promise<void> {
    await this.records.deleteOne(scope, { _id: key._id, createdAt: key.createdAt });
  }

  /** Keys are forgotten `seconds` after their claim (a TTL index, or a sweep where there is none). */
  expireByAge(seconds: number, logger: Logger): Promise<() => void> {
    return this.records.expireByAge(seconds, logger);
  }
}
