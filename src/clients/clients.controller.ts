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
import { ClientsService } from './clients.service';
import { ClientResponse } from './dto/client.response';
import { CreateClientDto } from './dto/create-client.dto';
import { ListClientsQuery } from './dto/list-clients.query';
import { UpdateClientDto } from './dto/update-client.dto';
import { Idempotent } from '../idempotency/idempotent.decorator';

const message = (text: string) => ({ type: MessageResponseDto, example: { message: text } });

/** The access policy the routes below share; a route that asks more adds it beside its handler. */
const CLIENTS_ACCESS: AccessPolicy = {
  credentials: ['userToken', 'session', 'secretKey'],
  scope: 'project',
  api: 'clients',
  assurance: 'accountMfa',
};

@ApiTags('clients')
@Controller('clients')
export class ClientsController {
  constructor(private readonly clients: ClientsService) {}

  @Access(CLIENTS_ACCESS)
  @Post()
  @Idempotent()
  @ApiOperation({
    summary: 'Create a client',
    description: '`name` and `email` are required. The email is not unique.',
  })
  @ApiCreatedResponse({
    type: MessageWithIdResponseDto,
    example: { message: 'Client created', id: '6650c0ffee0000000000d001' },
    links: {
      GetClient: { operationId: 'getClient', parameters: { id: '$response.body#/id' } },
      CreateChannelOfClient: { operationId: 'createChannel', requestBody: { clientId: '$response.body#/id' } },
      ListClientChannels: { operationId: 'listClientChannels', parameters: { clientId: '$response.body#/id' } },
    },
  })
  @ApiErrorResponses(400, 401, 413, 415, 500, 503)
  async createClient(@Tenant() scope: TenantScope, @Body() dto: CreateClientDto): Promise<MessageWithIdResponseDto> {
    return { message: 'Client created', id: await this.clients.create(scope, dto) };
  }

  @Access(CLIENTS_ACCESS)
  @Get()
  @ApiOperation({
    summary: 'List clients',
    description:
      'Newest first, bounded by `limit` (default 100, max 500) and `skip`. Soft-deleted clients are left out ' +
      'unless `includeDeleted=true`. The total of matching clients is in the `X-Total-Count` header.',
  })
  @ContentListResponse(ClientResponse)
  @ApiErrorResponses(400, 401, 500, 503)
  async listClients(
    @Tenant() scope: TenantScope,
    @Query() query: ListClientsQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ClientResponse[]> {
    return withTotalCount(reply, await this.clients.list(scope, query));
  }

  @Access(CLIENTS_ACCESS)
  @Get(':id')
  @ApiOperation({ summary: 'Get a client', description: 'A soft-deleted client is 404 unless `includeDeleted=true`.' })
  @ApiOkResponse({ type: ClientResponse })
  @ApiErrorResponses(400, 401, 404, 500, 503)
  getClient(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
    @Query() query: IncludeDeletedQuery,
  ): Promise<ClientResponse> {
    return this.clients.get(scope, id, query.includeDeleted);
  }

  @Access(CLIENTS_ACCESS)
  @Put(':id')
  @ApiOperation({
    summary: 'Update a client',
    description: 'Takes any subset of the writable fields. A soft-deleted client is 404: restore it first.',
  })
  @ApiOkResponse(message('Client updated'))
  @ApiErrorResponses(400, 401, 404, 413, 415, 500, 503)
  async updateClient(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
    @Body() dto: UpdateClientDto,
  ): Promise<MessageResponseDto> {
    await this.clients.update(scope, id, dto);
    return { message: 'Client updated' };
  }

  @Access(CLIENTS_ACCESS)
  @Patch(':id/soft-delete')
  @ApiOperation({
    summary: 'Soft-delete a client',
    description: 'Sets `deletedAt`; the client leaves lists and reads until restored. Already soft-deleted is 404.',
  })
  // A client is restored after its soft delete: the link that leads there, with the same id.
  @ApiOkResponse({
    ...message('Client soft-deleted'),
    links: { RestoreClient: { operationId: 'restoreClient', parameters: { id: '$request.path.id' } } },
  })
  @ApiErrorResponses(400, 401, 404, 500, 503)
  async softDeleteClient(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
  ): Promise<MessageResponseDto> {
    await this.clients.softDelete(scope, id);
    return { message: 'Client soft-deleted' };
  }

  @Access(CLIENTS_ACCESS)
  @Patch(':id/restore')
  @ApiOperation({
    summary: 'Restore a soft-deleted client',
    description: 'Clears `deletedAt`. Only a soft-deleted client can be restored: an unknown or live id is 404.',
  })
  @ApiOkResponse(message('Client restored'))
  @ApiErrorResponses(400, 401, 404, 500, 503)
  async restoreClient(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
  ): Promise<MessageResponseDto> {
    await this.clients.restore(scope, id);
    return { message: 'Client restored' };
  }

  @Access({ ...CLIENTS_ACCESS, roles: ['admin'] })
  @Delete(':id')
  @ApiOperation({
    summary: 'Hard-delete a client',
    description:
      'Admin only. Permanently removes a live or soft-deleted client. A client that still owns channels is 409 ' +
      'and nothing is removed: delete or move its channels first.',
  })
  @ApiOkResponse(message('Client hard-deleted'))
  @ApiErrorResponses(400, 401, 403, 404, 409, 500, 503)
  async hardDeleteClient(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
  ): Promise<MessageResponseDto> {
    await this.clients.hardDelete(scope, id);
    return { message: 'Client hard-deleted' };
  }
}
