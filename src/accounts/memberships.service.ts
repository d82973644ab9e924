import { ConflictException, Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';
import type { UserRole } from '../common/decorators/roles.decorator';
import { isDuplicateKey } from '../common/database/duplicate-key';
import { Membership } from './membership.schema';
import { insertDocument } from '../common/database/insert-document';
import { findLean, findOneLean } from '../common/database/lean-read';

/** The memberships collection: who belongs to which account, with which role. */
@Injectable()
export class MembershipsService {
  constructor(@InjectModel(Membership.name) private readonly memberships: Model<Membership>) {}

  /**
   * One indexed read, straight from the collection (the tenancy guard's check, on every request).
   * A malformed id is simply no membership.
   */
  find(accountId: string, userId: string): Promise<Membership | null> {
    if (!Types.ObjectId.isValid(accountId) || !Types.ObjectId.isValid(userId)) return Promise.resolve(null);
    return findOneLean(this.memberships, { accountId: new Types.ObjectId(accountId), userId: new Types.ObjectId(userId) });
  }

  /** Oldest first: the order accounts were joined. */
  listForUser(userId: string): Promise<Membership[]> {
    if (!Types.ObjectId.isValid(userId)) return Promise.resolve([]);
    return findLean(this.memberships, { userId: new Types.ObjectId(userId) }, { sort: { createdAt: 1, _id: 1 } });
  }

  listForAccount(accountId: string): Promise<Membership[]> {
    if (!Types.ObjectId.isValid(accountId)) return Promise.resolve([]);
    return findLean(this.memberships, { accountId: new Types.ObjectId(accountId) }, { sort: { createdAt: 1, _id: 1 } });
  }

  /** The unique (account, user) index makes a second join of the same user a 409, also under races. */
  async add(accountId: Types.ObjectId | string, userId: Types.ObjectId | string, role: UserRole, owner = false): Promise<Membership> {
    try {
      return await insertDocument(this.memberships, { accountId, userId, role, owner });
    } catch (error) {
      if (isDuplicateKey(error)) throw new ConflictException('This user is already a member of the account');
      throw error;
    }
  }

  async setRole(accountId: string, userId: string, role: UserRole): Promise<Membership | null> {
    return this.memberships
      .findOneAndUpdate({ accountId, userId }, { $set: { role } }, { returnDocument: 'after' })
      .lean<Membership>()
      .exec();
  }

  /** False when the user has no membership here (any more): nothing was written. */
  async setOwner(accountId: string, userId: string, owner: boolean, role?: UserRole): Promise<boolean> {
    const result = await this.memberships.updateOne({ accountId, userId }, { $set: { owner, ...(role ? { role } : {}) } }).exec();
    return result.matchedCount > 0;
  }

  /** Never removes the owner's membership: the filter says so, so a concurrent transfer cannot slip through. */
  async removeNonOwner(accountId: string, userId: string): Promise<boolean> {
    const result = await this.memberships.deleteOne({ accountId, userId, owner: false }).exec();
    return result.deletedCount > 0;
  }
}
