import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import { Records } from '../database/records';
import { Lease } from './lease.schema';

/** The leases: the only code that reads or writes them. A lease's key names what it serialises, across every tenant. */
@Injectable()
export class LeasesRepository {
  private readonly records: Records<Lease>;

  constructor(@InjectModel(Lease.name) model: Model<Lease>) {
    this.records = new Records(model);
  }

  /** Takes the lease; a lease held under this key is a duplicate-key error (atomic on MongoDB and FerretDB alike). */
  async insert(lease: { _id: string; holder: string; expiresAt: Date }): Promise<void> {
    await this.records.insert(lease);
  }

  find(key: string): Promise<Lease | null> {
    return this.records.findOne({ _id: key });
  }

  /** Pushes the lease's expiry on, only while `holder` still holds it: whether it does. */
  async extend(key: string, holder: string, expiresAt: Date): Promise<boolean> {
    return (await this.records.updateOne({ _id: key, holder }, { $set: { expiresAt } })).matched > 0;
  }

  /** Gives the lease back, only while `holder` still holds it. */
  async release(key: string, holder: string): Promise<void> {
    await this.records.deleteOne({ _id: key, holder });
  }
}
