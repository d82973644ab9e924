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
  async insert(lease: { _id: string; holder: string; expiresAt: Date; fence?: number }): Promise<void> {
    await this.records.insert(lease);
  }

  find(key: string): Promise<Lease | null> {
    return this.records.findOne({ _id: key });
  }

  /** Pushes the lease's expiry on, only while `holder` still holds it: whether it does. */
  async extend(key: string, holder: string, expiresAt: Date): Promise<boolean> {
    return (await this.records.updateOne({ _id: key, holder }, { $set: { expiresAt } })).matched > 0;
  }

  /** Pushes a fenced lease's expiry on, only while `holder` still holds it under `fence`: whether it does. */
  async extendFenced(key: string, holder: string, fence: number, expiresAt: Date): Promise<boolean> {
    return (await this.records.updateOne({ _id: key, holder, fence }, { $set: { expiresAt } })).matched > 0;
  }

  /**
   * Hands a fenced lease read at `fence` (absent on a lease taken before it had one) to `holder` at
   * `fence + 1`, only while it is still at `fence`: whether it moved. The caller first inserted the
   * take-over's claim (`claimKey`), which only one caller can, so two never move it from one token.
   */
  async takeOverFenced(key: string, fence: number | undefined, holder: string, expiresAt: Date): Promise<boolean> {
    const at = fence === undefined ? { fence: { $exists: false } } : { fence };
    const moved = await this.records.updateOne(
      { _id: key, ...at },
      { $set: { holder, expiresAt, fence: (fence ?? 0) + 1 } },
    );
    return moved.matched > 0;
  }

  /** Lets a fenced lease lapse now, only while `holder` holds it under `fence`: the document and its token stay. */
  async expireFenced(key: string, holder: string, fence: number): Promise<void> {
    await this.records.updateOne({ _id: key, holder, fence }, { $set: { expiresAt: new Date(0) } });
  }

  /** Removes the claim of an earlier take-over, once a later one stands: nothing reads it again. */
  async dropClaim(key: string): Promise<void> {
    await this.records.deleteOne({ _id: key });
  }

  /** Gives the lease back, only while `holder` still holds it. */
  async release(key: string, holder: string): Promise<void> {
    await this.records.deleteOne({ _id: key, holder });
  }
}
