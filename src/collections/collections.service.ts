import { auditContextOf } from '../audit/audit-draft';
import { AuditTrail } from '../audit/audit-trail';
import { Injectable } from '@nestjs/common';
import { pickDefined } from '../common/fields/pick-defined';
import type { ContentPage } from '../common/paging/total-count';
import type { TenantScope } from '../tenancy/tenant-scope';
import type { Collection } from './collection.schema';
import { CollectionsRepository } from './collections.repository';
import { toCollectionResponse } from './collections.mapper';
import { CollectionResponse } from './dto/collection.response';
import { CreateCollectionDto } from './dto/create-collection.dto';
import { ListCollectionsQuery } from './dto/list-collections.query';
import { UpdateCollectionDto } from './dto/update-collection.dto';

const WRITABLE_FIELDS = [
  'name',
  'description',
  'numberOfClients',
  'numberOfUsers',
  'usage',
  'pricing',
  'endpoints',
] as const;

/** Copies only the contract's writable fields, so nothing else of a body reaches the database. */
export function collectionFields(dto: UpdateCollectionDto): Partial<Collection> {
  return pickDefined(dto, WRITABLE_FIELDS);
}

@Injectable()
export class CollectionsService {
  constructor(
    private readonly records: CollectionsRepository,
    private readonly trail: AuditTrail,
  ) {}

  /** Whether the scope's project still holds any collection, live or soft-deleted (a platform project delete asks). */
  holdsRecords(scope: TenantScope): Promise<boolean> {
    return this.records.holdsAny(scope);
  }

  create(scope: TenantScope, dto: CreateCollectionDto): Promise<string> {
    return this.records.create(scope, collectionFields(dto));
  }

  async list(scope: TenantScope, query: ListCollectionsQuery): Promise<ContentPage<CollectionResponse>> {
    const { rows, total } = await this.records.list(scope, query);
    return { items: rows.map(toCollectionResponse), total };
  }

  async get(scope: TenantScope, id: string, includeDeleted: boolean): Promise<CollectionResponse> {
    return toCollectionResponse(await this.records.get(scope, id, includeDeleted));
  }

  update(scope: TenantScope, id: string, dto: UpdateCollectionDto): Promise<void> {
    return this.records.update(scope, id, collectionFields(dto));
  }

  softDelete(scope: TenantScope, id: string): Promise<void> {
    return this.records.softDelete(scope, id);
  }

  restore(scope: TenantScope, id: string): Promise<void> {
    return this.records.restore(scope, id);
  }

  /** Removes the collection whether live or soft-deleted. */
  /** Recorded in the audit log: a hard delete cannot be undone. */
  hardDelete(scope: TenantScope, id: string): Promise<void> {
    return this.trail.record(
      auditContextOf(scope),
      {
        accountId: scope.accountId,
        action: 'collection.deleted',
        target: { type: 'collection', id, label: null },
        projectId: scope.projectId,
      },
      { collection: 'collections', id, exists: false },
      () => this.records.hardDelete(scope, id),
    );
  }
}
