import { changesOf, type AuditContext } from '../audit/audit-draft';
import type { AuditParty } from '../audit/audit-entry.schema';
import { AuditTrail } from '../audit/audit-trail';
import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { InProcessEmitter, OnInProcessEvent } from '../in-process-events/in-process-events';
import { Types } from 'mongoose';
import { ACCOUNT_CREATED, AccountCreatedEvent } from '../accounts/accounts.events';
import { API_NAMES, type ApiName } from '../tenancy/api-names';
import type { ProjectLookup } from '../tenancy/tenancy-lookups';
import { scopeOfRecord } from '../tenancy/tenant-scope';
import { CreatePlatformProjectDto, UpdatePlatformProjectDto } from './dto/platform-project.dto';
import { PlatformProjectView } from './dto/platform-project.response';
import { PlatformProject } from './platform-project.schema';
import { toPlatformProjectView } from './platform-projects.mapper';
import { PlatformProjectsRepository } from './platform-projects.repository';
import {
  PLATFORM_PROJECT_DELETED,
  PLATFORM_PROJECT_DELETING,
  PlatformProjectDeletedEvent,
  PlatformProjectDeletingEvent,
} from './platform-projects.events';

export const DEFAULT_PROJECT_NAME = 'Default project';
export const PLATFORM_PROJECT_NOT_FOUND = 'Platform project not found';
export const PLATFORM_PROJECT_NOT_EMPTY = 'Platform project is not empty';
export const DEFAULT_PROJECT_UNDELETABLE = 'The default project cannot be deleted';

/** A set of API names in the one fixed order of `API_NAMES`, so stored and shown lists compare equal. */
export function normaliseApis(apis: readonly ApiName[]): ApiName[] {
  const wanted = new Set(apis);
  return API_NAMES.filter((name) => wanted.has(name));
}

/**
 * The platform projects of an account. Every method takes the account the caller acts in (checked
 * by the tenancy guard): a project of another account is exactly as absent as one that does not exist.
 * The tenancy guard resolves a request's project through it (as its `ProjectLookup`).
 */
@Injectable()
export class PlatformProjectsService implements ProjectLookup {
  constructor(
    private readonly projects: PlatformProjectsRepository,
    private readonly events: InProcessEmitter,
    private readonly trail: AuditTrail,
  ) {}

  /** Enables the events and webhooks APIs on every project made before they existed (`npm run migrate`); how many. */
  offerEventApis(): Promise<number> {
    return this.projects.offerEventApis(['events', 'webhooks']);
  }

  /** Every new account gets its default project, with every API enabled, under the id the account already names. */
  @OnInProcessEvent(ACCOUNT_CREATED, { suppressErrors: false })
  async createDefault(event: AccountCreatedEvent): Promise<void> {
    await this.projects.insert({
      _id: event.defaultProjectId,
      accountId: event.accountId,
      name: DEFAULT_PROJECT_NAME,
      enabledApis: [...API_NAMES],
      isDefault: true,
    });
  }

  /**
   * The project a request acts in: the named one, else the account's default; null when it is not the
   * account's. One indexed read, straight from the collection (the tenancy guard's, on every request).
   */
  resolve(accountId: string, projectId: string | undefined): Promise<PlatformProject | null> {
    return projectId === undefined
      ? this.projects.findDefault(accountId)
      : this.projects.findInAccount(accountId, projectId);
  }

  /** The account's project, or `404 Platform project not found`. */
  async require(accountId: string, projectId: string): Promise<PlatformProject> {
    const project = await this.resolve(accountId, projectId);
    if (!project) throw new NotFoundException(PLATFORM_PROJECT_NOT_FOUND);
    return project;
  }

  /** Oldest first, so the default project (made with the account) leads. */
  async list(accountId: string): Promise<PlatformProjectView[]> {
    const projects = await this.projects.listForAccount(accountId);
    return projects.map(toPlatformProjectView);
  }

  async get(accountId: string, projectId: string): Promise<PlatformProjectView> {
    return toPlatformProjectView(await this.require(accountId, projectId));
  }

  async create(audit: AuditContext, accountId: string, dto: CreatePlatformProjectDto): Promise<PlatformProjectView> {
    const _id = new Types.ObjectId();
    const created = await this.trail.record(
      audit,
      {
        accountId,
        action: 'platform_project.created',
        target: projectParty(String(_id), dto.name),
        projectId: String(_id),
      },
      { collection: 'platform_projects', id: String(_id), exists: true },
      () =>
        this.projects.insert({
          _id,
          accountId: new Types.ObjectId(accountId),
          name: dto.name,
          enabledApis: normaliseApis(dto.enabledApis ?? API_NAMES),
          isDefault: false,
        }),
    );
    return toPlatformProjectView(created);
  }

  /** Disabling an API keeps its records: the tenancy guard refuses its routes until it is enabled again. */
  async update(
    audit: AuditContext,
    accountId: string,
    projectId: string,
    dto: UpdatePlatformProjectDto,
  ): Promise<PlatformProjectView> {
    const set: Partial<Pick<PlatformProject, 'name' | 'enabledApis'>> = {};
    if (dto.name !== undefined) set.name = dto.name;
    if (dto.enabledApis !== undefined) set.enabledApis = normaliseApis(dto.enabledApis);
    if (Object.keys(set).length === 0) return this.get(accountId, projectId);
    const before = await this.require(accountId, projectId);
    const project = await this.trail.record(
      audit,
      {
        accountId,
        action: 'platform_project.updated',
        target: projectParty(String(before._id), before.name),
        projectId: String(before._id),
        changes: changesOf(before as unknown as Record<string, unknown>, set),
      },
      { collection: 'platform_projects', id: String(before._id), fields: set },
      () => this.projects.update(accountId, projectId, set),
    );
    if (!project) throw new NotFoundException(PLATFORM_PROJECT_NOT_FOUND);
    return toPlatformProjectView(project);
  }

  /**
   * Deletes an empty project that is not the account's default. Every data module is asked (an
   * awaited event) whether it still holds records in the project; then the project goes, and with it
   * its API keys. A record created by a request already past the tenancy guard while the delete runs
   * is not seen: deletes are an admin's deliberate act, and no transaction spans the modules.
   */
  async delete(audit: AuditContext, accountId: string, projectId: string): Promise<void> {
    const project = await this.require(accountId, projectId);
    if (project.isDefault) throw new ConflictException(DEFAULT_PROJECT_UNDELETABLE);
    const question: PlatformProjectDeletingEvent = { scope: scopeOfRecord({ accountId, projectId: project._id }) };
    const answers: unknown[] = await this.events.emitAsync(PLATFORM_PROJECT_DELETING, question);
    if (answers.some((holdsRecords) => holdsRecords === true)) throw new ConflictException(PLATFORM_PROJECT_NOT_EMPTY);
    const deletedNow = await this.trail.record(
      audit,
      {
        accountId,
        action: 'platform_project.deleted',
        target: projectParty(String(project._id), project.name),
        projectId: String(project._id),
      },
      { collection: 'platform_projects', id: String(project._id), exists: false },
      () => this.projects.deleteNonDefault(accountId, String(project._id)),
    );
    if (!deletedNow) throw new NotFoundException(PLATFORM_PROJECT_NOT_FOUND);
    const deleted: PlatformProjectDeletedEvent = { accountId, projectId: String(project._id) };
    await this.events.emitAsync(PLATFORM_PROJECT_DELETED, deleted);
  }
}

function projectParty(id: string, name: string): AuditParty {
  return { type: 'platform_project', id, label: name };
}
