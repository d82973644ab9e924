import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';
import { Records, toObjectId } from '../database/records';
import { Account, type AccountType } from './account.schema';
import { ownerVersionBelow as below } from './owner-version';

export interface NewAccount {
  /** Made before the insert, so the audit log can name the account it is about to create. */
  _id?: Types.ObjectId;
  name: string;
  type: AccountType;
  ownerId: string | Types.ObjectId;
  defaultProjectId: Types.ObjectId;
}

/** The accounts collection. A malformed id names no account. */
@Injectable()
export class AccountsRepository {
  private readonly records: Records<Account>;

  constructor(@InjectModel(Account.name) model: Model<Account>) {
    this.records = new Records(model);
  }

  insert(account: NewAccount): Promise<Account> {
    return this.records.insert(account);
  }

  findById(id: string): Promise<Account | null> {
    return this.records.findById(id);
  }

  findByIds(ids: readonly Types.ObjectId[]): Promise<Account[]> {
    return this.records.find({ _id: { $in: ids } });
  }

  /** The account after the change; null when there is no such account. */
  updateDetails(id: string, set: Partial<Pick<Account, 'name' | 'type'>>): Promise<Account | null> {
    const _id = toObjectId(id);
    return _id ? this.records.updateAndGet({ _id }, { $set: set }) : Promise.resolve(null);
  }

  /** The account after the change; null when there is no such account. */
  setRequireMfa(id: string, requireMfa: boolean): Promise<Account | null> {
    const _id = toObjectId(id);
    return _id ? this.records.updateAndGet({ _id }, { $set: { requireMfa } }) : Promise.resolve(null);
  }

  /** Whether the account requires a second factor; false for an unknown id. */
  async requiresMfa(id: string): Promise<boolean> {
    const _id = toObjectId(id);
    return _id ? this.records.exists({ _id, requireMfa: true }) : false;
  }

  /** Names the owner, for owner version `version`; false when the account is at that version or past it already. */
  async setOwnerFenced(id: Types.ObjectId, ownerId: Types.ObjectId, version: number): Promise<boolean> {
    const result = await this.records.updateOne(
      { _id: id, ...below(version) },
      { $set: { ownerId, ownerVersion: version } },
    );
    return result.matched > 0;
  }

  /** Moves the owner version to `version`, the owner unchanged (a transfer given up): its other writes no longer apply. */
  async fenceOwnerVersion(id: Types.ObjectId, version: number): Promise<void> {
    await this.records.updateOne({ _id: id, ...below(version) }, { $set: { ownerVersion: version } });
  }
}
