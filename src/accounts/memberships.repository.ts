import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';
import type { UserRole } from '../common/decorators/roles.decorator';
import { Records, toObjectId } from '../database/records';
import { Membership } from './membership.schema';

/** The order accounts were joined, and members listed. */
const OLDEST_FIRST = { createdAt: 1, _id: 1 } as const;

/** The memberships collection: who belongs to which account, with which role. A malformed id names no membership. */
@Injectable()
export class MembershipsRepository {
  private readonly records: Records<Membership>;

  constructor(@InjectModel(Membership.name) model: Model<Membership>) {
    this.records = new Records(model);
  }

  /** One read by the unique (account, user) index. */
  findMembership(accountId: string, userId: string): Promise<Membership | null> {
    const filter = membershipFilter(accountId, userId);
    return filter ? this.records.findOne(filter) : Promise.resolve(null);
  }

  listForUser(userId: string): Promise<Membership[]> {
    const user = toObjectId(userId);
    return user ? this.records.find({ userId: user }, { sort: OLDEST_FIRST }) : Promise.resolve([]);
  }

  listMembers(accountId: string): Promise<Membership[]> {
    const account = toObjectId(accountId);
    return account ? this.records.find({ accountId: account }, { sort: OLDEST_FIRST }) : Promise.resolve([]);
  }

  /** The unique (account, user) index refuses a second membership of the same user (a duplicate-key error). */
  insert(accountId: Types.ObjectId | string, userId: Types.ObjectId | string, role: UserRole, owner: boolean, _id = new Types.ObjectId()): Promise<Membership> {
    return this.records.insert({ _id, accountId, userId, role, owner });
  }

  /** The membership after the change; null when the user is no member, or is the owner (whose role stays). */
  setRoleOfNonOwner(accountId: string, userId: string, role: UserRole): Promise<Membership | null> {
    const filter = membershipFilter(accountId, userId);
    return filter ? this.records.updateAndGet({ ...filter, owner: false }, { $set: { role } }) : Promise.resolve(null);
  }

  /** False when the user has no membership here (any more): nothing was written. */
  async setOwner(accountId: string, userId: string, owner: boolean, role?: UserRole): Promise<boolean> {
    const filter = membershipFilter(accountId, userId);
    if (!filter) return false;
    const result = await this.records.updateOne(filter, { $set: { owner, ...(role ? { role } : {}) } });
    return result.matched > 0;
  }

  /** Never removes the owner's membership; true when one was removed. */
  async deleteNonOwner(accountId: string, userId: string): Promise<boolean> {
    const filter = membershipFilter(accountId, userId);
    return filter ? this.records.deleteOne({ ...filter, owner: false }) : false;
  }
}

function membershipFilter(accountId: string, userId: string): { accountId: Types.ObjectId; userId: Types.ObjectId } | null {
  const account = toObjectId(accountId);
  const user = toObjectId(userId);
  return account && user ? { accountId: account, userId: user } : null;
}
