import { auditContextOf } from '../audit/audit-draft';
import { AuditTrail } from '../audit/audit-trail';
import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { InProcessEmitter } from '../in-process-events/in-process-events';
import { pickDefined } from '../common/fields/pick-defined';
import type { ContentPage } from '../common/paging/total-count';
import type { TenantScope } from '../tenancy/tenant-scope';
import type { Client } from './client.schema';
import { CLIENT_NOT_FOUND, ClientsRepository } from './clients.repository';
import { CLIENT_HARD_DELETING, ClientHardDeletingEvent, UNKNOWN_PROJECT_IDS } from './clients.events';
import { ContentProjectsLookup } from './clients.ports';
import { toClientResponse } from './clients.mapper';
import { ClientResponse } from './dto/client.response';
import { CreateClientDto } from './dto/create-client.dto';
import { ListClientsQuery } from './dto/list-clients.query';
import { UpdateClientDto } from './dto/update-client.dto';

/** A deleting mark older than this belongs to a delete whose server stopped part-way. */
const DELETING_LEASE_MS = 60_000;
const WRITABLE_FIELDS = ['name', 'email', 'phone', 'projectIds'] as const;

/** Copies only the contract's writable fields, so nothing else of a body reaches the database. */
export function clientFields(dto: UpdateClientDto): Partial<Client> {
  const fields = pickDefined(dto, WRITABLE_FIELDS);
  return fields.projectIds ? { ...fields, projectIds: fields.projectIds.map((id) => id.toLowerCase()) } : fields;
}

@Injectable()
export class ClientsService {
  private contentProjects?: ContentProjectsLookup;

  constructor(
    private readonly records: ClientsRepository,
    private readonly events: InProcessEmitter,
    private readonly trail: AuditTrail,
    private readonly modules: ModuleRef,
  ) {}

  /** True when a live client with this id exists in the scope's project. A malformed id is simply false. */
  isLive(scope: TenantScope, clientId: string): Promise<boolean> {
    return this.records.isLive(scope, clientId);
  }

  /** 404 unless the client exists in the scope, live or soft-deleted (its channels can still be listed). */
  async assertExists(scope: TenantScope, clientId: string): Promise<void> {
    if (!(await this.records.exists(scope, clientId))) throw new NotFoundException(CLIENT_NOT_FOUND);
  }

  /** Whether the scope's project still holds any client, live or soft-deleted (a platform project delete asks). */
  holdsRecords(scope: TenantScope): Promise<boolean> {
    return this.records.holdsAny(scope);
  }

  async create(scope: TenantScope, dto: CreateClientDto): Promise<string> {
    await this.assertProjectsExist(scope, dto.projectIds);
    return this.records.create(scope, clientFields(dto));
  }

  async list(scope: TenantScope, query: ListClientsQuery): Promise<ContentPage<ClientResponse>> {
    const { rows, total } = await this.records.list(scope, query);
    return { items: rows.map(toClientResponse), total };
  }

  async get(scope: TenantScope, id: string, includeDeleted: boolean): Promise<ClientResponse> {
    return toClientResponse(await this.records.get(scope, id, includeDeleted));
  }

  async update(scope: TenantScope, id: string, dto: UpdateClientDto): Promise<void> {
    await this.assertProjectsExist(scope, dto.projectIds);
    return this.records.update(scope, id, clientFields(dto));
  }

  /**
   * 400 unless every id names a content project of the scope's platform project: another tenant's
   * project is as unknown as a missing one. Channels ask the same before they write theirs.
   */
  async assertProjectsExist(scope: TenantScope, projectIds: readonly string[] | undefined): Promise<void> {
    if (!projectIds?.length) return;
    // The projects module provides the lookup without this module importing it; found on first use, so a context without projects (the migration command) still starts.
    this.contentProjects ??= this.modules.get(ContentProjectsLookup, { strict: false });
    if (!(await this.contentProjects.allExist(scope, projectIds))) throw new BadRequestException(UNKNOWN_PROJECT_IDS);
  }

  softDelete(scope: TenantScope, id: string): Promise<void> {
    return this.records.softDelete(scope, id);
  }

  restore(scope: TenantScope, id: string): Promise<void> {
    return this.records.restore(scope, id);
  }

  /**
   * True while a live client can take a new channel: live, and no hard delete under way. A channel
   * create asks again after its insert, which closes the window between a delete's check for
   * channels and its removal (see hardDelete).
   */
  async acceptsChannels(scope: TenantScope, clientId: string, now = new Date()): Promise<boolean> {
    const client = await this.records.findLive(scope, clientId);
    if (!client) return false;
    return !client.deletingAt || now.getTime() - new Date(client.deletingAt).getTime() >= DELETING_LEASE_MS;
  }

  /**
   * Removes the client whether live or soft-deleted. It is marked as deleting first, then child
   * modules are asked (a listener that still finds channels throws a ConflictException, the mark is
   * lifted and nothing is removed), then it is removed. A channel create that raced the check sees
   * the mark after its own insert and withdraws.
   */
  async hardDelete(scope: TenantScope, id: string): Promise<void> {
    if (!(await this.records.markDeleting(scope, id, new Date()))) throw new NotFoundException(CLIENT_NOT_FOUND);
    const event: ClientHardDeletingEvent = { scope, clientId: id };
    try {
      await this.trail.record(
        auditContextOf(scope),
        {
          accountId: scope.accountId,
          action: 'client.deleted',
          target: { type: 'client', id, label: null },
          projectId: scope.projectId,
        },
        { collection: 'clients', id, exists: false },
        () => this.records.hardDelete(scope, id, () => this.events.emitAsync(CLIENT_HARD_DELETING, event)),
      );
    } catch (error) {
      await this.records.markDeleting(scope, id, null);
      throw error;
    }
  }
}
