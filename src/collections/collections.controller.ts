import { Access, type AccessPolicy } from '../access/policy/access-policy';
import { Body, Controller, Delete, Get, Param, Patch, Post, Put, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { MessageResponseDto, MessageWithIdResponseDto } from '../common/dto/error-response.dto';
import { IncludeDeletedQuery } from '../common/paging/content-list.query';
import { ContentListResponse, withTotalCount } from '../common/paging/total-count';
import { ParseObjectIdPipe } from '../common/pipes/parse-object-id.pipe';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import { Tenant } from '../tenancy/tenancy.decorators';
import type { TenantScope } from '../tenancy/tenant-scope';
import { CollectionsService } from './collections.service';
import { CollectionResponse } from './dto/collection.response';
import { CreateCollectionDto } from './dto/create-collection.dto';
import { ListCollectionsQuery } from './dto/list-collections.query';
import { UpdateCollectionDto } from './dto/update-collection.dto';
import { Idempotent } from '../idempotency/idempotent.decorator';

const message = (text: string) => ({ type: MessageResponseDto, example: { message: text } });

/** The access policy the routes below share; a route that asks more adds it beside its handler. */
const COLLECTIONS_ACCESS: AccessPolicy = {
  credentials: ['userToken', 'session', 'secretKey'],
  scope: 'project',
  api: 'collections',
  assurance: 'accountMfa',
};

@ApiTags('collections')
@Controller('collections')
export class CollectionsController {
  constructor(private readonly collections: CollectionsService) {}

  @Access(COLLECTIONS_ACCESS)
  @Post()
  @Idempotent()
  @ApiOperation({ summary: 'Create a collection', description: 'Only `name` is required.' })
  @ApiCreatedResponse({
    type: MessageWithIdResponseDto,
    example: { message: 'Collection created', id: '6650c0ffee0000000000c001' },
  })
  @ApiErrorResponses(400, 401, 413, 415, 500, 503)
  async createCollection(
    @Tenant() scope: TenantScope,
    @Body() dto: CreateCollectionDto,
  ): Promise<MessageWithIdResponseDto> {
    return { message: 'Collection created', id: await this.collections.create(scope, dto) };
  }

  @Access(COLLECTIONS_ACCESS)
  @Get()
  @ApiOperation({
    summary: 'List collections',
    description:
      'Newest first, bounded by `limit` (default 100, max 500) and `skip`. Soft-deleted collections are left out ' +
      'unless `includeDeleted=true`. The total of matching collections is in the `X-Total-Count` header.',
  })
  @ContentListResponse(CollectionResponse)
  @ApiErrorResponses(400, 401, 500, 503)
  async listCollections(
    @Tenant() scope: TenantScope,
    @Query() query: ListCollectionsQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<CollectionResponse[]> {
    return withTotalCount(reply, await this.collections.list(scope, query));
  }

  @Access(COLLECTIONS_ACCESS)
  @Get(':id')
  @ApiOperation({
    summary: 'Get a collection',
    description: 'A soft-deleted collection is 404 unless `includeDeleted=true`.',
  })
  @ApiOkResponse({ type: CollectionResponse })
  @ApiErrorResponses(400, 401, 404, 500, 503)
  getCollection(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
    @Query() query: IncludeDeletedQuery,
  ): Promise<CollectionResponse> {
    return this.collections.get(scope, id, query.includeDeleted);
  }

  @Access(COLLECTIONS_ACCESS)
  @Put(':id')
  @ApiOperation({
    summary: 'Update a collection',
    description: 'Takes any subset of the writable fields. A soft-deleted collection is 404: restore it first.',
  })
  @ApiOkResponse(message('Collection updated'))
  @ApiErrorResponses(400, 401, 404, 413, 415, 500, 503)
  async updateCollection(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
    @Body() dto: UpdateCollectionDto,
  ): Promise<MessageResponseDto> {
    await this.collections.update(scope, id, dto);
    return { message: 'Collection updated' };
  }

  @Access(COLLECTIONS_ACCESS)
  @Patch(':id/soft-delete')
  @ApiOperation({
    summary: 'Soft-delete a collection',
    description: 'Sets `deletedAt`; the collection leaves lists and reads until restored. Already soft-deleted is 404.',
  })
  // A collection is restored after its soft delete: the link that leads there, with the same id.
  @ApiOkResponse({
    ...message('Collection soft-deleted'),
    links: { RestoreCollection: { operationId: 'restoreCollection', parameters: { id: '$request.path.id' } } },
  })
  @ApiErrorResponses(400, 401, 404, 500, 503)
  async softDeleteCollection(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
  ): Promise<MessageResponseDto> {
    await this.collections.softDelete(scope, id);
    return { message: 'Collection soft-deleted' };
  }

  @Access(COLLECTIONS_ACCESS)
  @Patch(':id/restore')
  @ApiOperation({
    summary: 'Restore a soft-deleted collection',
    description: 'Clears `deletedAt`. Only a soft-deleted collection can be restored: an unknown or live id is 404.',
  })
  @ApiOkResponse(message('Collection restored'))
  @ApiErrorResponses(400, 401, 404, 500, 503)
  async restoreCollection(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
  ): Promise<MessageResponseDto> {
    await this.collections.restore(scope, id);
    return { message: 'Collection restored' };
  }

  @Access({ ...COLLECTIONS_ACCESS, roles: ['admin'] })
  @Delete(':id')
  @ApiOperation({
    summary: 'Hard-delete a collection',
    description: 'Admin only. Permanently removes a live or soft-deleted collection.',
  })
  @ApiOkResponse(message('Collection hard-deleted'))
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  async hardDeleteCollection(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
  ): Promise<MessageResponseDto> {
    await this.collections.hardDelete(scope, id);
    return { message: 'Collection hard-deleted' };
  }
}
