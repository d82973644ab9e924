import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';
import { Records } from '../database/records';
import { OwnershipTransfer } from './ownership-transfer.schema';

/** The ownership transfers' claims: the only code that reads or writes them. */
@Injectable()
export class OwnershipTransfersRepository {
  private readonly records: Records<OwnershipTransfer>;

  constructor(@InjectModel(OwnershipTransfer.name) model: Model<OwnershipTransfer>) {
    this.records = new Records(model);
  }

  /** Claims `version` of the account's owner; a duplicate-key error when another transfer claimed it. */
  async claim(
    accountId: Types.ObjectId,
    from: Types.ObjectId,
    to: Types.ObjectId,
    version: number,
  ): Promise<OwnershipTransfer> {
    return this.records.insert({
      _id: `${String(accountId)}:${version}`,
      accountId,
      from,
      to,
      version,
      completedAt: null,
      outcome: null,
    });
  }

  /** Unfinished transfers, oldest version first: of one account, or of every account. */
  unfinished(accountId?: Types.ObjectId): Promise<OwnershipTransfer[]> {
    return this.records.find(
      { completedAt: null, ...(accountId ? { accountId } : {}) },
      { sort: { accountId: 1, version: 1 } },
    );
  }

  async finish(id: string, outcome: 'transferred' | 'abandoned'): Promise<void> {
    await this.records.updateOne({ _id: id, completedAt: null }, { $set: { completedAt: new Date(), outcome } });
  }
}
