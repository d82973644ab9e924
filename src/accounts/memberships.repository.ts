import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';
import type { UserRole } from '../common/decorators/roles.decorator';
import { Records, toObjectId } from '../database/records';
import { ownerVersionBelow as below } from './owner-version';
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
  insert(
    accountId: Types.ObjectId | string,
    userId: Types.ObjectId | string,
    role: UserRole,
    owner: boolean,
    _id = new Types.ObjectId(),
  ): Promise<Membership> {
    return this.records.insert({ _id, accountId, userId, role, owner });
  }

  /** The membership after the change; null when the user is no member, or is the owner (whose role stays). */
  setRoleOfNonOwner(accountId: string, userId: string, role: UserRole): Promise<Membership | null> {
    const filter = membershipFilter(accountId, userId);
    return filter ? this.records.updateAndGet({ ...filter, owner: false }, { $set: { role } }) : Promise.resolve(null);
  }

  /**
   * Makes the member the owner (role admin) for owner version `version`; false when the user has no
   * membership here, or it was written at that version or past it already.
   */
  async markOwnerFenced(accountId: Types.ObjectId, userId: Types.ObjectId, version: number): Promise<boolean> {
    const result = await this.records.updateOne(
      { accountId, userId, ...below(version) },
      { $set: { owner: true, role: 'admin', ownerVersion: version } },
    );
    return result.matched > 0;
  }

  /**
   * Every other member of the account is no owner, as of owner version `version`: each membership
   * written at a lower version is stamped with it, so an older transfer that resumes late makes none
   * of them the owner again.
   */
  async unmarkOthersFenced(accountId: Types.ObjectId, ownerId: Types.ObjectId, version: number): Promise<void> {
    await this.records.updateMany(
      { accountId, userId: { $ne: ownerId }, ...below(version) },
      { $set: { owner: false, ownerVersion: version } },
    );
  }

  /** Never removes the owner's membership; true when one was removed. */
  async deleteNonOwner(accountId: string, userId: string): Promise<boolean> {
    const filter = membershipFilter(accountId, userId);
    return filter ? this.records.deleteOne({ ...filter, owner: false }) : false;
  }
}

function membershipFilter(
  accountId: string,
  userId: string,
): { accountId: Types.ObjectId; userId: Types.ObjectId } | null {
  const account = toObjectId(accountId);
  const user = toObjectId(userId);
  return account && user ? { accountId: account, userId: user } : null;
}
