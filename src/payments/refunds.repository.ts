import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model, Types } from 'mongoose';
import { TenantRecords } from '../tenancy/tenant-records';
import type { TenantScope } from '../tenancy/tenant-scope';
import { Refund } from './refund.schema';

/** The refunds collection: the only code that reads or writes it. */
@Injectable()
export class RefundsRepository {
  private readonly records: TenantRecords<Refund>;

  constructor(@InjectModel(Refund.name) model: Model<Refund>) {
    this.records = new TenantRecords(model);
  }

  /** The refund with this id in the project, or null. */
  findById(scope: TenantScope, id: string): Promise<Refund | null> {
    return this.records.findOne(scope, { _id: id });
  }

  /** Writes the refund; a refund with this id already there is a duplicate-key error. */
  insert(scope: TenantScope, refund: { _id: string; paymentId: Types.ObjectId; amountMinor: number; fingerprint: string | null }): Promise<Refund> {
    return this.records.insert(scope, refund);
  }
}
