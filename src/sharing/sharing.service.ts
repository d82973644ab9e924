import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import * as bcrypt from 'bcrypt';
import { Types } from 'mongoose';
import { auditContextOf } from '../audit/audit-draft';
import { AuditTrail } from '../audit/audit-trail';
import { Clock } from '../common/clock/clock';
import type { ContentListQuery } from '../common/paging/content-list.query';
import type { ContentPage } from '../common/paging/total-count';
import { RequestValidationException } from '../common/pipes/validation.pipe';
import { authConfig } from '../config/auth.config';
import { ProjectsService } from '../projects/projects.service';
import type { TenantScope } from '../tenancy/tenant-scope';
import { UsersService } from '../identity/users/users.service';
import type { CreateGrantDto } from './dto/create-grant.dto';
import type { CreateShareLinkDto } from './dto/create-share-link.dto';
import type { GrantView } from './dto/grant.response';
import type { CreatedShareLinkView, ShareLinkView } from './dto/share-link.response';
import { GrantsRepository } from './grants.repository';
import { generateShareToken } from './share-link-token';
import { ShareLinksRepository } from './share-links.repository';
import { toCreatedShareLinkView, toGrantView, toShareLinkView } from './sharing.mapper';

export const PROJECT_NOT_FOUND = 'Project not found';
export const SHARE_LINK_NOT_FOUND = 'Share link not found';
export const GRANT_NOT_FOUND = 'Grant not found';

/**
 * Share links and grants of a content project, inside the request's platform project: made,
 * listed and revoked by its members and secret keys. Each change is an event of the link or grant
 * (its outbox) and an entry of the account's audit log (its intent first).
 */
@Injectable()
export class SharingService {
  constructor(
    private readonly links: ShareLinksRepository,
    private readonly grants: GrantsRepository,
    private readonly projects: ProjectsService,
    private readonly users: UsersService,
    private readonly clock: Clock,
    private readonly trail: AuditTrail,
    @Inject(authConfig.KEY) private readonly auth: ConfigType<typeof authConfig>,
  ) {}

  /** The cascade of content projects' deletes: their share links and grants go, with their views. */
  async removeForProjects(scope: TenantScope, projectIds: readonly string[]): Promise<void> {
    const ids = projectIds.filter((id) => Types.ObjectId.isValid(id)).map((id) => new Types.ObjectId(id));
    await this.links.deleteOfProjects(scope, ids);
    await this.grants.deleteOfProjects(scope, ids);
  }

  async createShareLink(scope: TenantScope, projectId: string, dto: CreateShareLinkDto): Promise<CreatedShareLinkView> {
    const project = await this.requireProject(scope, projectId);
    const expiresAt = this.futureDate(dto.expiresAt);
    const passwordHash = dto.password === undefined ? null : await bcrypt.hash(dto.password, this.auth.bcryptRounds);
    const secret = generateShareToken();
    const _id = new Types.ObjectId();
    const id = String(_id);
    const created = await this.trail.record(
      auditContextOf(scope),
      {
        accountId: scope.accountId,
        action: 'share_link.created',
        target: { type: 'share_link', id, label: secret.start },
        projectId: scope.projectId,
      },
      { collection: 'share_links', id, exists: true },
      () =>
        this.links.insert(scope, {
          _id,
          contentProjectId: project,
          hash: secret.hash,
          start: secret.start,
          passwordHash,
          expiresAt,
        }),
    );
    return toCreatedShareLinkView(created, passwordHash !== null, secret.token);
  }

  async listShareLinks(
    scope: TenantScope,
    projectId: string,
    query: ContentListQuery,
  ): Promise<ContentPage<ShareLinkView>> {
    const project = await this.requireProject(scope, projectId);
    const { rows, total } = await this.links.page(scope, project, query.skip, query.limit);
    const views = await this.links.viewsOf(
      scope,
      rows.map((link) => link._id),
    );
    return { items: rows.map((link) => toShareLinkView(link, views.get(String(link._id)) ?? 0)), total };
  }

  /** The link stops at once (404 to viewers). Revoking a revoked link changes nothing and answers the same. */
  async revokeShareLink(scope: TenantScope, projectId: string, linkId: string): Promise<void> {
    const project = await this.requireProject(scope, projectId);
    const link = await this.links.findInProject(scope, project, linkId);
    if (!link) throw new NotFoundException(SHARE_LINK_NOT_FOUND);
    const id = String(link._id);
    const revoked = await this.trail.record(
      auditContextOf(scope),
      {
        accountId: scope.accountId,
        action: 'share_link.revoked',
        target: { type: 'share_link', id, label: link.start },
        projectId: scope.projectId,
      },
      { collection: 'share_links', id, present: ['revokedAt'] },
      () => this.links.revoke(scope, project, id, this.clock.now()),
    );
    if (!revoked) throw new NotFoundException(SHARE_LINK_NOT_FOUND);
  }

  /**
   * A grant to a user (who must exist) or to an email address, whoever has or later signs up with
   * it: the address is matched when a viewer reads, so a grant made before the signup needs nothing
   * done at the signup.
   */
  async createGrant(scope: TenantScope, projectId: string, dto: CreateGrantDto): Promise<GrantView> {
    if (dto.userId !== undefined && dto.email !== undefined) {
      throw new RequestValidationException([{ field: 'userId', messages: ['send either userId or email, not both'] }]);
    }
    const project = await this.requireProject(scope, projectId);
    const expiresAt = this.futureDate(dto.expiresAt);
    let userId: Types.ObjectId | null = null;
    if (dto.userId !== undefined) {
      const user = await this.users.findById(dto.userId);
      if (!user) throw new RequestValidationException([{ field: 'userId', messages: ['userId names no user'] }]);
      userId = new Types.ObjectId(String(user._id));
    }
    const _id = new Types.ObjectId();
    const id = String(_id);
    const created = await this.trail.record(
      auditContextOf(scope),
      {
        accountId: scope.accountId,
        action: 'grant.created',
        target: { type: 'grant', id, label: dto.email ?? null },
        projectId: scope.projectId,
      },
      { collection: 'grants', id, exists: true },
      () =>
        this.grants.insert(scope, {
          _id,
          contentProjectId: project,
          userId,
          email: dto.email ?? null,
          role: dto.role,
          expiresAt,
        }),
    );
    return toGrantView(created);
  }

  async listGrants(scope: TenantScope, projectId: string, query: ContentListQuery): Promise<ContentPage<GrantView>> {
    const project = await this.requireProject(scope, projectId);
    const { rows, total } = await this.grants.page(scope, project, query.skip, query.limit);
    const views = await this.grants.viewsOf(
      scope,
      rows.map((grant) => grant._id),
    );
    return { items: rows.map((grant) => toGrantView(grant, views.get(String(grant._id)) ?? 0)), total };
  }

  /** The grant ends at once. Revoking a revoked grant changes nothing and answers the same. */
  async revokeGrant(scope: TenantScope, projectId: string, grantId: string): Promise<void> {
    const project = await this.requireProject(scope, projectId);
    const grant = await this.grants.findInProject(scope, project, grantId);
    if (!grant) throw new NotFoundException(GRANT_NOT_FOUND);
    const id = String(grant._id);
    const revoked = await this.trail.record(
      auditContextOf(scope),
      {
        accountId: scope.accountId,
        action: 'grant.revoked',
        target: { type: 'grant', id, label: grant.email },
        projectId: scope.projectId,
      },
      { collection: 'grants', id, present: ['revokedAt'] },
      () => this.grants.revoke(scope, project, id, this.clock.now()),
    );
    if (!revoked) throw new NotFoundException(GRANT_NOT_FOUND);
  }

  /**
   * The content project's id as stored; 404 when the scope's platform project has no such project.
   * Sharing needs the channel role manager in its channel: the routes' access policy.
   */
  private async requireProject(scope: TenantScope, projectId: string): Promise<Types.ObjectId> {
    const project = await this.projects.findRecord(scope, projectId);
    if (!project) throw new NotFoundException(PROJECT_NOT_FOUND);
    return project._id;
  }

  private futureDate(value: string | null | undefined): Date | null {
    if (value == null) return null;
    const date = new Date(value);
    if (date.getTime() <= this.clock.now().getTime()) {
      throw new RequestValidationException([{ field: 'expiresAt', messages: ['expiresAt must be in the future'] }]);
    }
    return date;
  }
}
