import { changesOf, type AuditContext } from '../audit/audit-draft';
import { AuditTrail } from '../audit/audit-trail';
import {
  ConflictException,
  ForbiddenException,
  Injectable,
  Logger,
  NotFoundException,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { InProcessEmitter } from '../in-process-events/in-process-events';
import { Types } from 'mongoose';
import type { UserRole } from '../common/decorators/roles.decorator';
import { isDuplicateKey } from '../common/database/duplicate-key';
import { toObjectId } from '../database/records';
import { Leases } from '../leases/leases.service';
import { SecondFactorLookup } from '../identity/users/users.ports';
import { UsersService } from '../identity/users/users.service';
import { Account, type AccountType } from './account.schema';
import {
  ACCOUNT_CREATED,
  ACCOUNT_MFA_REQUIREMENT_CHANGED,
  AccountCreatedEvent,
  AccountMfaRequirementChangedEvent,
  MEMBER_LEAVING,
} from './accounts.events';
import { hasAdminRights, toAccountView, toMemberView } from './accounts.mapper';
import { AccountsRepository } from './accounts.repository';
import { AccountView, MemberView } from './dto/account.response';
import { UpdateAccountDto } from './dto/account.dto';
import { Membership } from './membership.schema';
import { MembershipsService } from './memberships.service';
import type { OwnershipTransfer } from './ownership-transfer.schema';
import { OwnershipTransfersRepository } from './ownership-transfers.repository';

export const ACCOUNT_NOT_FOUND = 'Account not found';
const ADMIN_ONLY = 'This operation needs the role admin';
const MEMBER_NOT_FOUND = 'Member not found';
const OWNER_ONLY = 'Only the owner can transfer ownership';
const TRANSFER_FIRST = 'Transfer ownership first';
const MEMBERS_BUSY = "Another change to this account's owner or members is in progress: try again";

/**
 * Accounts and their members. Every method is asked by a user about an account they must belong to.
 *
 * Invariant: an account has one owner, the one `Account.ownerId` names, and only that member's
 * membership says `owner: true`, except while a transfer is half-done (then the old and the new
 * owner both do, so someone always holds the owner's rights). A transfer first claims the account's
 * next owner version (a unique insert, see OwnershipTransfer: of two transfers that read one version,
 * one claims it), then makes its writes (the new owner's membership, the account, every other
 * membership), each only where the stored owner version is lower than its own, and stamping it: a
 * transfer that stalls past its lease and resumes after a later one can overwrite none of that
 * later transfer's writes. A claim not yet finished is finished (its writes are repeatable) on start
 * and by the account's next transfer, so a stop between the writes never leaves two owners for good.
 */
@Injectable()
export class AccountsService implements OnApplicationBootstrap {
  private readonly logger = new Logger(AccountsService.name);

  constructor(
    private readonly accounts: AccountsRepository,
    private readonly memberships: MembershipsService,
    private readonly users: UsersService,
    private readonly events: InProcessEmitter,
    private readonly leases: Leases,
    private readonly trail: AuditTrail,
    private readonly transfers: OwnershipTransfersRepository,
    private readonly modules: ModuleRef,
  ) {}

  /** A second factor of the user's own, as sessions count one: TOTP or a passkey (asked of the factors module). */
  private async hasFactor(userId: string): Promise<boolean> {
    return this.modules.get(SecondFactorLookup, { strict: false }).userHasFactor(userId);
  }

  /** Finishes the transfers a stopped instance left half-done; a failure is logged, the next transfer of the account retries it. */
  async onApplicationBootstrap(): Promise<void> {
    try {
      const finished = await this.finishTransfers();
      if (finished > 0)
        this.logger.warn(`Finished ${finished} ownership transfer(s) left half-done by a stopped instance`);
    } catch (error) {
      this.logger.warn(`Finishing half-done ownership transfers failed: ${(error as Error).message}`);
    }
  }

  /**
   * Creates an account owned by `ownerId`, their membership, and (through the awaited event) its
   * default platform project, whose id is chosen here so the account never names a missing one.
   * The account's first audit entry says who created it.
   */
  async create(
    audit: AuditContext,
    ownerId: string,
    name: string,
    type: AccountType,
    role: UserRole,
  ): Promise<AccountView> {
    const defaultProjectId = new Types.ObjectId();
    const _id = new Types.ObjectId();
    const account = await this.trail.record(
      audit,
      {
        accountId: String(_id),
        action: 'account.created',
        target: { type: 'account', id: String(_id), label: name },
        changes: { name: [null, name], type: [null, type] },
      },
      { collection: 'accounts', id: String(_id), exists: true },
      () => this.accounts.insert({ _id, name, type, ownerId, defaultProjectId }),
    );
    const event: AccountCreatedEvent = { accountId: account._id, defaultProjectId };
    await this.events.emitAsync(ACCOUNT_CREATED, event);
    const membership = await this.memberships.add(account._id, ownerId, role, true);
    return toAccountView(account, membership);
  }

  async listForUser(userId: string): Promise<AccountView[]> {
    const memberships = await this.memberships.listForUser(userId);
    if (memberships.length === 0) return [];
    const accounts = await this.accounts.findByIds(memberships.map((membership) => membership.accountId));
    const byId = new Map(accounts.map((account) => [String(account._id), account]));
    return memberships.flatMap((membership) => {
      const account = byId.get(String(membership.accountId));
      return account ? [toAccountView(account, membership)] : [];
    });
  }

  async get(accountId: string, userId: string): Promise<AccountView> {
    const { account, membership } = await this.requireMember(accountId, userId);
    return toAccountView(account, membership);
  }

  /** The account's name and type, or null: for responses that show a membership's account. */
  async view(accountId: string, userId: string): Promise<AccountView | null> {
    const found = await this.findMember(accountId, userId);
    return found && toAccountView(found.account, found.membership);
  }

  async update(audit: AuditContext, accountId: string, userId: string, dto: UpdateAccountDto): Promise<AccountView> {
    const { account: before, membership } = await this.requireAdmin(accountId, userId);
    const set: Partial<Pick<Account, 'name' | 'type'>> = {};
    if (dto.name !== undefined) set.name = dto.name;
    if (dto.type !== undefined) set.type = dto.type;
    if (dto.requireMfa !== undefined) {
      if (!membership.owner) throw new ForbiddenException('Only the owner can require a second factor');
      if (dto.requireMfa && !(await this.hasFactor(userId))) {
        throw new ConflictException(
          'Set up a second factor of your own first (POST /api/v1/me/mfa/totp or a passkey): you would be locked out',
        );
      }
    }
    let account: Account | null = before;
    if (Object.keys(set).length > 0 || dto.requireMfa === undefined)
      account = await this.updateDetails(audit, accountId, before, set);
    if (dto.requireMfa !== undefined && dto.requireMfa !== (before.requireMfa === true)) {
      const requireMfa = dto.requireMfa;
      account = await this.trail.record(
        audit,
        {
          accountId,
          action: 'account.mfa_required',
          target: { type: 'account', id: accountId, label: before.name },
          changes: { requireMfa: [!requireMfa, requireMfa] },
        },
        { collection: 'accounts', id: accountId, fields: { requireMfa } },
        () => this.accounts.setRequireMfa(accountId, requireMfa),
      );
      const event: AccountMfaRequirementChangedEvent = { accountId, requireMfa };
      await this.events.emitAsync(ACCOUNT_MFA_REQUIREMENT_CHANGED, event);
    }
    if (!account) throw new NotFoundException(ACCOUNT_NOT_FOUND);
    return toAccountView(account, membership);
  }

  /** Whether the account requires a second factor of its members (the tenancy guard asks, for password-only sessions). */
  requiresMfa(accountId: string): Promise<boolean> {
    return this.accounts.requiresMfa(accountId);
  }

  private async updateDetails(
    audit: AuditContext,
    accountId: string,
    before: Account,
    set: Partial<Pick<Account, 'name' | 'type'>>,
  ): Promise<Account | null> {
    return this.trail.record(
      audit,
      {
        accountId,
        action: 'account.updated',
        target: { type: 'account', id: accountId, label: before.name },
        changes: changesOf(before as unknown as Record<string, unknown>, set),
      },
      { collection: 'accounts', id: accountId, fields: set },
      () => this.accounts.updateDetails(accountId, set),
    );
  }

  /**
   * Hands the account to another member, who becomes admin: a compare-and-set on the account's owner
   * version (see the invariant above). Transfers, removals and role changes of one account also run
   * one at a time (a lease), and the caller must still be the owner `Account.ownerId` names once it
   * is this transfer's turn (after any half-done transfer is finished), so of two concurrent
   * transfers the second finds its caller no longer the owner (403).
   */
  async transferOwnership(
    audit: AuditContext,
    accountId: string,
    ownerId: string,
    newOwnerId: string,
  ): Promise<AccountView> {
    const { membership } = await this.requireMember(accountId, ownerId);
    if (!membership.owner) throw new ForbiddenException(OWNER_ONLY);
    if (newOwnerId === ownerId) return this.get(accountId, ownerId);
    const target = await this.memberships.find(accountId, newOwnerId);
    if (!target) throw new NotFoundException(MEMBER_NOT_FOUND);
    await this.oneChangeAtATime(accountId, async () => {
      // requireMember found a membership of this account: its id is well-formed.
      await this.finishTransfers(toObjectId(accountId)!);
      const current = await this.accounts.findById(accountId);
      if (!current || String(current.ownerId) !== ownerId) throw new ForbiddenException(OWNER_ONLY);
      const version = (current.ownerVersion ?? 0) + 1;
      await this.trail.record(
        audit,
        {
          accountId,
          action: 'ownership.transferred',
          target: { type: 'user', id: newOwnerId, label: null },
          changes: { ownerId: [ownerId, newOwnerId] },
        },
        { collection: 'accounts', id: accountId, fields: { ownerId: newOwnerId } },
        async () => {
          let claim: OwnershipTransfer;
          try {
            claim = await this.transfers.claim(current._id, current.ownerId, toObjectId(newOwnerId)!, version);
          } catch (error) {
            if (isDuplicateKey(error)) throw new ConflictException(MEMBERS_BUSY);
            throw error;
          }
          // The member may have left or been removed since: then the account keeps its owner.
          if (!(await this.applyTransfer(claim))) throw new NotFoundException(MEMBER_NOT_FOUND);
        },
      );
    });
    return this.get(accountId, ownerId);
  }

  /** Makes the writes of every unfinished transfer (of one account, or of all), oldest first; how many it finished. */
  private async finishTransfers(accountId?: Types.ObjectId): Promise<number> {
    const unfinished = await this.transfers.unfinished(accountId);
    for (const transfer of unfinished) await this.applyTransfer(transfer);
    return unfinished.length;
  }

  /**
   * A claimed transfer's writes, each fenced by its version, so running them twice (the transfer and
   * the repair), or after a later transfer, changes nothing more. False when the new owner was no
   * member any more: the transfer is given up, the owner unchanged, its version spent.
   */
  private async applyTransfer(transfer: OwnershipTransfer): Promise<boolean> {
    const { accountId, to, version } = transfer;
    const account = await this.accounts.findById(String(accountId));
    if ((account?.ownerVersion ?? 0) > version) {
      // A later transfer has run: its writes stand, this one's are spent.
      await this.transfers.finish(transfer._id, 'transferred');
      return true;
    }
    if (!(await this.memberships.markOwnerFenced(accountId, to, version))) {
      if (!(await this.memberships.find(String(accountId), String(to)))) {
        await this.accounts.fenceOwnerVersion(accountId, version);
        await this.transfers.finish(transfer._id, 'abandoned');
        return false;
      }
      // Written at this version or past it already: by another run of this transfer, or a later one.
    }
    await this.accounts.setOwnerFenced(accountId, to, version);
    await this.memberships.unmarkOthersFenced(accountId, to, version);
    await this.transfers.finish(transfer._id, 'transferred');
    return true;
  }

  async listMembers(accountId: string, userId: string): Promise<MemberView[]> {
    await this.requireMember(accountId, userId);
    const memberships = await this.memberships.listForAccount(accountId);
    const users = await this.users.findByIds(memberships.map((membership) => String(membership.userId)));
    const byId = new Map(users.map((user) => [String(user._id), user]));
    return memberships.flatMap((membership) => {
      const user = byId.get(String(membership.userId));
      return user ? [toMemberView(membership, user)] : [];
    });
  }

  /** Serialised with transfers, so a member who is becoming the owner is not demoted on the way. */
  async changeRole(
    audit: AuditContext,
    accountId: string,
    callerId: string,
    memberId: string,
    role: UserRole,
  ): Promise<MemberView> {
    await this.requireAdmin(accountId, callerId);
    const updated = await this.oneChangeAtATime(accountId, async () => {
      const target = await this.memberships.find(accountId, memberId);
      if (!target) throw new NotFoundException(MEMBER_NOT_FOUND);
      if (target.owner) throw new ForbiddenException("The owner's role cannot be changed: transfer ownership first");
      return this.trail.record(
        audit,
        {
          accountId,
          action: 'member.role_changed',
          target: { type: 'user', id: memberId, label: null },
          changes: { role: [target.role, role] },
        },
        { collection: 'memberships', id: String(target._id), fields: { role } },
        () => this.memberships.setRole(accountId, memberId, role),
      );
    });
    const user = await this.users.findById(memberId);
    if (!updated || !user) throw new NotFoundException(MEMBER_NOT_FOUND);
    return toMemberView(updated, user);
  }

  /**
   * An admin removes a member, or a member leaves. The owner stays until ownership is handed on;
   * serialised with transfers, so the member a transfer is making the owner is not removed meanwhile.
   */
  async removeMember(audit: AuditContext, accountId: string, callerId: string, memberId: string): Promise<void> {
    if (callerId === memberId) await this.requireMember(accountId, callerId);
    else await this.requireAdmin(accountId, callerId);
    await this.oneChangeAtATime(accountId, async () => {
      const target = await this.memberships.find(accountId, memberId);
      if (!target) throw new NotFoundException(MEMBER_NOT_FOUND);
      if (target.owner) throw new ConflictException(TRANSFER_FIRST);
      const account = await this.accounts.findById(accountId);
      if (!account) throw new NotFoundException(ACCOUNT_NOT_FOUND);
      // Their channel roles go first: a stop between the two leaves a member with fewer roles, whom
      // a retried removal removes, never a departed user whose roles wait for them to be invited back.
      const leaving = { accountId, userId: memberId, ownerId: String(account.ownerId), audit };
      await this.events.emitAsync(MEMBER_LEAVING, leaving);
      const removed = await this.trail.record(
        audit,
        {
          accountId,
          action: callerId === memberId ? 'member.left' : 'member.removed',
          target: { type: 'user', id: memberId, label: null },
          changes: { role: [target.role, null] },
        },
        { collection: 'memberships', id: String(target._id), exists: false },
        () => this.memberships.removeNonOwner(accountId, memberId),
      );
      if (!removed) throw new NotFoundException(MEMBER_NOT_FOUND);
      // Once more, for a role given while the membership was going (an add checks the membership
      // again after its write, so one given after is withdrawn by the add itself). The member is
      // gone either way: a failure here is logged, not answered.
      await this.events
        .emitAsync(MEMBER_LEAVING, leaving)
        .catch((error: Error) =>
          this.logger.warn(`Channel roles of departed member ${memberId} left to remove: ${error.message}`),
        );
    });
  }

  /** The account and the caller's membership; 404 when the caller is not a member, as if it did not exist. */
  async requireMember(accountId: string, userId: string): Promise<{ account: Account; membership: Membership }> {
    const found = await this.findMember(accountId, userId);
    if (!found) throw new NotFoundException(ACCOUNT_NOT_FOUND);
    return found;
  }

  async requireAdmin(accountId: string, userId: string): Promise<{ account: Account; membership: Membership }> {
    const found = await this.requireMember(accountId, userId);
    if (!hasAdminRights(found.membership)) throw new ForbiddenException(ADMIN_ONLY);
    return found;
  }

  private async findMember(
    accountId: string,
    userId: string,
  ): Promise<{ account: Account; membership: Membership } | null> {
    const membership = await this.memberships.find(accountId, userId);
    if (!membership) return null;
    const account = await this.accounts.findById(accountId);
    return account ? { account, membership } : null;
  }

  /** Changes of an account's owner and members, one at a time across every instance. */
  private oneChangeAtATime<T>(accountId: string, change: () => Promise<T>): Promise<T> {
    return this.leases.withLease(`account-members:${accountId}`, MEMBERS_BUSY, change);
  }
}
