import { ConflictException, Injectable } from '@nestjs/common';
import { Types } from 'mongoose';
import type { UserRole } from '../common/decorators/roles.decorator';
import { isDuplicateKey } from '../common/database/duplicate-key';
import type { MembershipLookup } from '../tenancy/tenancy-lookups';
import { Membership } from './membership.schema';
import { MembershipsRepository } from './memberships.repository';

/**
 * Who belongs to which account, with which role. The tenancy guard reads a membership through it on
 * every request (as its `MembershipLookup`).
 */
@Injectable()
export class MembershipsService implements MembershipLookup {
  constructor(private readonly memberships: MembershipsRepository) {}

  /** One indexed read, straight from the collection. A malformed id is simply no membership. */
  find(accountId: string, userId: string): Promise<Membership | null> {
    return this.memberships.findMembership(accountId, userId);
  }

  /** Oldest first: the order accounts were joined. */
  listForUser(userId: string): Promise<Membership[]> {
    return this.memberships.listForUser(userId);
  }

  listForAccount(accountId: string): Promise<Membership[]> {
    return this.memberships.listMembers(accountId);
  }

  /** The unique (account, user) index makes a second join of the same user a 409, also under races. */
  async add(
    accountId: Types.ObjectId | string,
    userId: Types.ObjectId | string,
    role: UserRole,
    owner = false,
    _id?: Types.ObjectId,
  ): Promise<Membership> {
    try {
      return await this.memberships.insert(accountId, userId, role, owner, _id);
    } catch (error) {
      if (isDuplicateKey(error)) throw new ConflictException('This user is already a member of the account');
      throw error;
    }
  }

  /** Null when the user is no member or is the owner: the owner's role is never changed. */
  setRole(accountId: string, userId: string, role: UserRole): Promise<Membership | null> {
    return this.memberships.setRoleOfNonOwner(accountId, userId, role);
  }

  /** See MembershipsRepository.markOwnerFenced. */
  markOwnerFenced(accountId: Types.ObjectId, userId: Types.ObjectId, version: number): Promise<boolean> {
    return this.memberships.markOwnerFenced(accountId, userId, version);
  }

  /** See MembershipsRepository.unmarkOthersFenced. */
  unmarkOthersFenced(accountId: Types.ObjectId, ownerId: Types.ObjectId, version: number): Promise<void> {
    return this.memberships.unmarkOthersFenced(accountId, ownerId, version);
  }

  /** Never removes the owner's membership: the filter says so. */
  removeNonOwner(accountId: string, userId: string): Promise<boolean> {
    return this.memberships.deleteNonOwner(accountId, userId);
  }
}
