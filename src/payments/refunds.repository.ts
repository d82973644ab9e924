import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model, Types } from 'mongoose';
import { Records } from '../database/records';
import { TenantRecords } from '../tenancy/tenant-records';
import type { TenantScope } from '../tenancy/tenant-scope';
import { Refund } from './refund.schema';

export interface NewRefund {
  _id: string;
  paymentId: Types.ObjectId;
  amountMinor: number;
  fingerprint: string | null;
  accountId: string;
  requestId: string | null;
  idempotencyKey: string | null;
}

/** The refunds collection: the only code that reads or writes it. */
@Injectable()
export class RefundsRepository {
  private readonly records: TenantRecords<Refund>;
  /** For the sweep only, which finds pending refunds in every project and settles each in its own. */
  private readonly everyProject: Records<Refund>;

  constructor(@InjectModel(Refund.name) model: Model<Refund>) {
    this.records = new TenantRecords(model);
    this.everyProject = new Records(model);
  }

  /** The refund with this id in the project, or null. */
  findById(scope: TenantScope, id: string): Promise<Refund | null> {
    return this.records.findOne(scope, { _id: id });
  }

  /** Writes the refund; a refund with this id already there is a duplicate-key error. */
  insert(scope: TenantScope, refund: NewRefund): Promise<Refund> {
    return this.records.insert(scope, refund);
  }

  /** The refund is in the payment's totals, or never will be: from `pending` only. */
  async settle(scope: TenantScope, id: string, status: 'applied' | 'voided'): Promise<void> {
    await this.records.updateOne(scope, { _id: id, status: 'pending' }, { $set: { status } });
  }

  /** Refunds still pending, written before `cutoff`, in every project: oldest first. */
  pendingBefore(cutoff: Date, limit: number): Promise<Refund[]> {
    return this.everyProject.find({ status: 'pending', createdAt: { $lt: cutoff } }, { sort: { createdAt: 1 }, limit });
  }
}
