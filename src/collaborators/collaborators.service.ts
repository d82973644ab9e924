import { ConflictException, ForbiddenException, Injectable, NotFoundException } from '@nestjs/common';
import { Leases } from '../leases/leases.service';
import { Types } from 'mongoose';
import { auditContextOf, type AuditChanges, type AuditContext } from '../audit/audit-draft';
import { AuditTrail } from '../audit/audit-trail';
import { CHANNEL_NOT_FOUND, ChannelsService } from '../channels/channels.service';
import type { ChannelActor } from '../channels/channels.events';
import { Clock } from '../common/clock/clock';
import { isDuplicateKey } from '../common/database/duplicate-key';
import type { ContentListQuery } from '../common/paging/content-list.query';
import type { ContentPage } from '../common/paging/total-count';
import { RequestValidationException } from '../common/pipes/validation.pipe';
import type { MemberLeavingEvent } from '../accounts/accounts.events';
import { PlatformProjectsService } from '../platform-projects/platform-projects.service';
import { MembershipLookup } from '../tenancy/tenancy-lookups';
import { tenantScope, type TenantScope } from '../tenancy/tenant-scope';
import { roleAtLeast, type ChannelRole, type Collaborator } from './collaborator.schema';
import { CollaboratorsRepository } from './collaborators.repository';
import { toCollaboratorResponse } from './collaborators.mapper';
import type { AddCollaboratorDto, ChangeCollaboratorDto } from './dto/add-collaborator.dto';
import type { CollaboratorResponse } from './dto/collaborator.response';

const USER_NOT_FOUND = 'User not found';
/** The `code` of every refusal for want of a channel role, whatever the route. */
export const CHANNEL_ROLE_REQUIRED = 'channel_role_required';
/** The `code` of a change that would leave a channel without an owner. */
export const LAST_OWNER = 'last_channel_owner';
const COLLABORATOR_NOT_FOUND = 'Collaborator not found';
const COLLECTION = 'channel_collaborators';

/**
 * Who changes a channel's content. A platform `admin` (the account's owner counts as one, an API key
 * acts as one) may do anything; anyone else needs a live collaborator record of the channel with the
 * role the write names or above. `userId` is null only for a caller that is no user.
 */
export type ContentActor = ChannelActor;

/**
 * A channel's collaborators: members of the account, each with one role per channel and an
 * optional end, after which they count as none. The channel's creator is its owner. Managing them
 * needs the channel role owner or the platform role admin (the routes' access policy, held by the
 * access guard through `assertRole`).
 */
@Injectable()
export class CollaboratorsService {
  constructor(
    private readonly collaborators: CollaboratorsRepository,
    private readonly channels: ChannelsService,
    private readonly memberships: MembershipLookup,
    private readonly trail: AuditTrail,
    private readonly clock: Clock,
    private readonly leases: Leases,
    private readonly platformProjects: PlatformProjectsService,
  ) {}

  /** The route's access policy asks for the channel role owner; an unknown channel is 404 here. */
  async add(scope: TenantScope, channelId: string, dto: AddCollaboratorDto): Promise<CollaboratorResponse> {
    await this.assertChannel(scope, channelId);
    if (!(await this.memberships.find(scope.accountId, dto.userId))) throw new NotFoundException(USER_NOT_FOUND);
    const expiresAt = this.futureOrNull(dto.expiresAt);
    const _id = new Types.ObjectId();
    const id = String(_id);
    try {
      const created = await this.trail.record(
        auditContextOf(scope),
        {
          accountId: scope.accountId,
          action: 'collaborator.added',
          target: target(id),
          projectId: scope.projectId,
          changes: { userId: [null, dto.userId], role: [null, dto.role] },
        },
        { collection: COLLECTION, id, exists: true },
        () => this.collaborators.insert(scope, channelId, dto.userId, dto.role, expiresAt, _id),
      );
      // A member removed while this was written left their channels before this record existed:
      // the role is withdrawn, as if the check above had come after the removal.
      if (!(await this.memberships.find(scope.accountId, dto.userId))) {
        await this.removeRecorded(auditContextOf(scope), scope, created);
        throw new NotFoundException(USER_NOT_FOUND);
      }
      return toCollaboratorResponse(created);
    } catch (error) {
      if (isDuplicateKey(error))
        throw new ConflictException('The user is a collaborator of this channel already; change their role instead');
      throw error;
    }
  }

  async list(
    scope: TenantScope,
    channelId: string,
    query: ContentListQuery,
  ): Promise<ContentPage<CollaboratorResponse>> {
    await this.assertChannel(scope, channelId);
    const { rows, total } = await this.collaborators.page(scope, channelId, query.skip, query.limit);
    return { items: rows.map(toCollaboratorResponse), total };
  }

  async change(
    scope: TenantScope,
    channelId: string,
    userId: string,
    dto: ChangeCollaboratorDto,
  ): Promise<CollaboratorResponse> {
    // An unknown channel (another tenant's among them) is 404; the access guard asked no role of it.
    await this.assertChannel(scope, channelId);
    const set: Record<string, unknown> = {};
    if (dto.role !== undefined) set.role = dto.role;
    if (dto.expiresAt !== undefined) set.expiresAt = this.futureOrNull(dto.expiresAt);
    return this.underOwnersLease(channelId, async () => {
      const current = await this.collaborators.find(scope, channelId, userId);
      if (!current) throw new NotFoundException(COLLABORATOR_NOT_FOUND);
      const role = (set.role as ChannelRole | undefined) ?? current.role;
      const expiresAt = set.expiresAt !== undefined ? (set.expiresAt as Date | null) : current.expiresAt;
      if (role !== 'owner' || expiresAt != null) await this.assertOtherOwner(scope, channelId, current);
      return this.applyChange(scope, channelId, userId, current, dto, set);
    });
  }

  private async applyChange(
    scope: TenantScope,
    channelId: string,
    userId: string,
    current: Collaborator,
    dto: ChangeCollaboratorDto,
    set: Record<string, unknown>,
  ): Promise<CollaboratorResponse> {
    const id = String(current._id);
    const changed = await this.trail.record(
      auditContextOf(scope),
      {
        accountId: scope.accountId,
        action: 'collaborator.changed',
        target: target(id),
        projectId: scope.projectId,
        changes:
          dto.role !== undefined && dto.role !== current.role
            ? { userId: [userId, userId], role: [current.role, dto.role] }
            : null,
      },
      dto.role !== undefined
        ? { collection: COLLECTION, id, fields: { role: dto.role } }
        : { collection: COLLECTION, id, exists: true },
      () => this.collaborators.change(scope, channelId, userId, set),
    );
    if (!changed) throw new NotFoundException(COLLABORATOR_NOT_FOUND);
    return toCollaboratorResponse(changed);
  }

  async remove(scope: TenantScope, channelId: string, userId: string): Promise<void> {
    await this.assertChannel(scope, channelId);
    await this.underOwnersLease(channelId, async () => {
      const current = await this.collaborators.find(scope, channelId, userId);
      if (!current) throw new NotFoundException(COLLABORATOR_NOT_FOUND);
      await this.assertOtherOwner(scope, channelId, current);
      if (!(await this.removeRecorded(auditContextOf(scope), scope, current)))
        throw new NotFoundException(COLLABORATOR_NOT_FOUND);
    });
  }

  /**
   * A channel keeps an owner whose role has no end: a change that takes the role, or gives it an
   * end, from an owner without one needs another such owner (409 `last_channel_owner` otherwise).
   * Changes of owners run under the channel's lease, so two owners cannot step down at once.
   */
  private async assertOtherOwner(scope: TenantScope, channelId: string, current: Collaborator): Promise<void> {
    if (current.role !== 'owner' || current.expiresAt != null) return;
    if (await this.collaborators.hasLastingOwnerBesides(scope, channelId, String(current.userId))) return;
    throw new ConflictException({
      statusCode: 409,
      error: 'Conflict',
      message: 'A channel keeps at least one owner: make another collaborator its owner first',
      code: LAST_OWNER,
    });
  }

  private underOwnersLease<T>(channelId: string, work: () => Promise<T>): Promise<T> {
    return this.leases.withLease(
      `channel-owners:${channelId}`,
      "Another change of this channel's collaborators is in progress; retry",
      work,
    );
  }

  /**
   * 403 unless the actor is a platform admin or holds, in every one of the channels, a live role
   * `needed` or above. One read for a non-admin, none for an admin.
   */
  async assertRole(
    scope: TenantScope,
    actor: ContentActor,
    channelIds: readonly string[],
    needed: ChannelRole,
  ): Promise<void> {
    if (actor.admin) return;
    const records = actor.userId
      ? await this.collaborators.findInChannels(scope, [...new Set(channelIds)], actor.userId)
      : [];
    const now = this.clock.now().getTime();
    const allowed = (channelId: string) =>
      records.some(
        (record) => String(record.channelId) === channelId && live(record, now) && roleAtLeast(record.role, needed),
      );
    if (!channelIds.every(allowed)) {
      throw new ForbiddenException({
        statusCode: 403,
        error: 'Forbidden',
        message: `This needs the channel role ${needed} or above, or the platform role admin`,
        code: CHANNEL_ROLE_REQUIRED,
      });
    }
  }

  /** The channel's creator becomes its owner (a user; an API key is no collaborator). */
  async addCreator(scope: TenantScope, channelId: string): Promise<void> {
    const actor = scope.origin.actor;
    if (actor?.type === 'user') await this.collaborators.insertUnlessPresent(scope, channelId, actor.id, 'owner');
  }

  /** Makes the user the channel's owner unless they are a collaborator already (the migration); whether it added them. */
  addOwnerUnlessPresent(scope: TenantScope, channelId: string, userId: string): Promise<boolean> {
    return this.collaborators.insertUnlessPresent(scope, channelId, userId, 'owner');
  }

  /**
   * A member leaving the account loses their role in every channel of it. A channel they were the
   * last lasting owner of gets the account's owner as its owner first (under the channel's owners
   * lease, as every change of owners), so no channel is left without one. Each change is audited, as
   * the caller who removed the member. Idempotent: run again, it finds nothing left to remove.
   */
  async memberLeaving(event: MemberLeavingEvent): Promise<void> {
    for (const project of await this.platformProjects.list(event.accountId)) {
      const scope = tenantScope(event.accountId, project.id);
      for (const record of await this.collaborators.ofUser(scope, event.userId)) {
        const channelId = String(record.channelId);
        await this.underOwnersLease(channelId, async () => {
          // Read again under the lease: a change that held it since may have made them an owner.
          const current = await this.collaborators.find(scope, channelId, event.userId);
          if (!current) return;
          if (current.role === 'owner' && current.expiresAt == null) await this.keepAnOwner(scope, channelId, event);
          await this.removeRecorded(event.audit, scope, current);
        });
      }
    }
  }

  /** The account's owner becomes the channel's lasting owner unless another lasting owner stays. */
  private async keepAnOwner(scope: TenantScope, channelId: string, event: MemberLeavingEvent): Promise<void> {
    if (await this.collaborators.hasLastingOwnerBesides(scope, channelId, event.userId)) return;
    const present = await this.collaborators.find(scope, channelId, event.ownerId);
    const entry = (id: string, action: 'collaborator.added' | 'collaborator.changed', changes: AuditChanges) => ({
      accountId: scope.accountId,
      action,
      target: target(id),
      projectId: scope.projectId,
      changes,
    });
    if (!present) {
      const _id = new Types.ObjectId();
      const id = String(_id);
      await this.trail.record(
        event.audit,
        entry(id, 'collaborator.added', { userId: [null, event.ownerId], role: [null, 'owner'] }),
        { collection: COLLECTION, id, exists: true },
        () => this.collaborators.insert(scope, channelId, event.ownerId, 'owner', null, _id),
      );
      return;
    }
    const id = String(present._id);
    await this.trail.record(
      event.audit,
      entry(id, 'collaborator.changed', { userId: [event.ownerId, event.ownerId], role: [present.role, 'owner'] }),
      { collection: COLLECTION, id, fields: { role: 'owner' } },
      () => this.collaborators.change(scope, channelId, event.ownerId, { role: 'owner', expiresAt: null }),
    );
  }

  /** Removes the record, in the audit log as `audit`'s; whether it was there still. */
  private removeRecorded(audit: AuditContext, scope: TenantScope, current: Collaborator): Promise<boolean> {
    const id = String(current._id);
    const userId = String(current.userId);
    return this.trail.record(
      audit,
      {
        accountId: scope.accountId,
        action: 'collaborator.removed',
        target: target(id),
        projectId: scope.projectId,
        changes: { userId: [userId, null], role: [current.role, null] },
      },
      { collection: COLLECTION, id, exists: false },
      () => this.collaborators.remove(scope, String(current.channelId), userId),
    );
  }

  removeAllOfChannel(scope: TenantScope, channelId: string): Promise<void> {
    return this.collaborators.removeAllOfChannel(scope, channelId);
  }

  private futureOrNull(value: string | null | undefined): Date | null {
    if (value == null) return null;
    const date = new Date(value);
    if (date.getTime() <= this.clock.now().getTime()) {
      throw new RequestValidationException([{ field: 'expiresAt', messages: ['expiresAt must be in the future'] }]);
    }
    return date;
  }

  private async assertChannel(scope: TenantScope, channelId: string): Promise<void> {
    if (!(await this.channels.exists(scope, channelId))) throw new NotFoundException(CHANNEL_NOT_FOUND);
  }
}

function live(record: Collaborator, now: number): boolean {
  return !record.expiresAt || new Date(record.expiresAt).getTime() > now;
}

/** The entry names the collaborator record; whose it is, is in its changes (`userId`). */
function target(id: string) {
  return { type: 'collaborator', id, label: null };
}
