import { Access, type AccessPolicy } from '../access/policy/access-policy';
import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { FinanceListQuery } from '../common/paging/finance-list.query';
import { ParseObjectIdPipe } from '../common/pipes/parse-object-id.pipe';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { readableEventTypes } from '../events/event-types';
import type { Principal } from '../tenancy/principal';
import { Caller, Tenant } from '../tenancy/tenancy.decorators';
import type { TenantScope } from '../tenancy/tenant-scope';
import { CreateWebhookEndpointDto, RollSecretDto, UpdateWebhookEndpointDto } from './dto/webhook-endpoint.dto';
import {
  WebhookDeliveryEnvelope,
  WebhookDeliveryListResponse,
  WebhookEndpointDeletedResponse,
  WebhookEndpointEnvelope,
  WebhookEndpointListResponse,
  WebhookEndpointWithSecretEnvelope,
} from './dto/webhook-endpoint.response';
import { WebhooksService } from './webhooks.service';

const DELIVERY_HEADERS =
  'Each delivery is `POST <url>` with `content-type: application/json`, the event as the body, and the Standard Webhooks headers: ' +
  '`webhook-id` (the event id, the same on every retry), `webhook-timestamp` (integer seconds, of this attempt) and `webhook-signature` ' +
  '(`v1,` and the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the base64-decoded part of the secret after ' +
  '`whsec_`; two space-separated signatures while a rolled secret is in its grace period).';

/** The access policy the routes below share; a route that asks more adds it beside its handler. */
const WEBHOOKS_ACCESS: AccessPolicy = {
  credentials: ['userToken', 'session', 'secretKey'],
  scope: 'project',
  api: 'webhooks',
  assurance: 'accountMfa',
  roles: ['admin'],
};

@ApiTags('webhooks')
@Controller('v1/webhook-endpoints')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Access(WEBHOOKS_ACCESS)
  @Post()
  @Idempotent()
  @ApiOperation({
    summary: 'Create a webhook endpoint',
    description: `Admins and keys of the project; a key whose scopes leave out an API sends none of its events (403). At most 16 endpoints a project. The answer holds the signing \`secret\`, shown this once. ${DELIVERY_HEADERS}`,
  })
  @ApiCreatedResponse({ type: WebhookEndpointWithSecretEnvelope, description: 'The endpoint, with its secret' })
  @ApiErrorResponses(400, 401, 403, 404, 409, 413, 415, 422, 500, 503)
  async createEndpoint(
    @Tenant() scope: TenantScope,
    @Caller() caller: Principal,
    @Body() dto: CreateWebhookEndpointDto,
  ): Promise<WebhookEndpointWithSecretEnvelope> {
    return { data: await this.webhooks.create(scope, dto, readableEventTypes(caller)) };
  }

  @Access(WEBHOOKS_ACCESS)
  @Get()
  @ApiOperation({
    summary: 'List webhook endpoints',
    description: 'Newest first, `limit` per page (default 20, max 100), `startingAfter` the last id seen.',
  })
  @ApiOkResponse({ type: WebhookEndpointListResponse, description: 'One page of endpoints' })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  listEndpoints(@Tenant() scope: TenantScope, @Query() query: FinanceListQuery): Promise<WebhookEndpointListResponse> {
    return this.webhooks.list(scope, query);
  }

  @Access(WEBHOOKS_ACCESS)
  @Get(':id')
  @ApiOperation({ summary: 'Get a webhook endpoint', description: 'Never shows the secret.' })
  @ApiOkResponse({ type: WebhookEndpointEnvelope, description: 'The endpoint' })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  async getEndpoint(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
  ): Promise<WebhookEndpointEnvelope> {
    return { data: await this.webhooks.get(scope, id) };
  }

  @Access(WEBHOOKS_ACCESS)
  @Patch(':id')
  @ApiOperation({
    summary: 'Update a webhook endpoint',
    description:
      '`url`, `description`, `enabledEvents` and `status` (enabled or disabled). A key changes only an endpoint whose events, after ' +
      'the change, are of the APIs its scopes include (403 otherwise).',
  })
  @ApiOkResponse({ type: WebhookEndpointEnvelope, description: 'The endpoint after the change' })
  @ApiErrorResponses(400, 401, 403, 404, 413, 415, 500, 503)
  async updateEndpoint(
    @Tenant() scope: TenantScope,
    @Caller() caller: Principal,
    @Param('id', ParseObjectIdPipe) id: string,
    @Body() dto: UpdateWebhookEndpointDto,
  ): Promise<WebhookEndpointEnvelope> {
    return { data: await this.webhooks.update(scope, id, dto, readableEventTypes(caller)) };
  }

  @Access(WEBHOOKS_ACCESS)
  @Delete(':id')
  @ApiOperation({
    summary: 'Delete a webhook endpoint',
    description: 'Its deliveries go with it; pending ones are not sent.',
  })
  @ApiOkResponse({ type: WebhookEndpointDeletedResponse, description: 'The endpoint is gone' })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  async deleteEndpoint(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
  ): Promise<WebhookEndpointDeletedResponse> {
    await this.webhooks.delete(scope, id);
    return { id, deleted: true, message: 'Webhook endpoint deleted' };
  }

  @Access(WEBHOOKS_ACCESS)
  @Post(':id/roll-secret')
  @Idempotent()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: "Roll a webhook endpoint's secret",
    description:
      'A new secret, shown in this answer only. The current one keeps signing beside it for `expiresInHours` (0 to 24, default 24): ' +
      'deliveries then carry two `v1,` signatures, so a receiver can switch secrets without missing one.',
  })
  @ApiOkResponse({ type: WebhookEndpointWithSecretEnvelope, description: 'The endpoint, with its new secret' })
  @ApiErrorResponses(400, 401, 403, 404, 409, 413, 415, 422, 500, 503)
  async rollSecret(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
    @Body() dto: RollSecretDto,
  ): Promise<WebhookEndpointWithSecretEnvelope> {
    return { data: await this.webhooks.rollSecret(scope, id, dto) };
  }

  @Access(WEBHOOKS_ACCESS)
  @Post(':id/test')
  @Idempotent()
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({
    summary: 'Send a test event',
    description:
      'A `webhook.test` event, to this endpoint only, off the request; not in the event list. A disabled endpoint is 409: enable it first.',
  })
  @ApiAcceptedResponse({
    type: WebhookDeliveryEnvelope,
    description: 'The delivery, pending',
    links: {
      RetryDelivery: {
        operationId: 'retryDelivery',
        parameters: { id: '$request.path.id', deliveryId: '$response.body#/data/id' },
      },
    },
  })
  @ApiErrorResponses(400, 401, 403, 404, 409, 413, 415, 422, 500, 503)
  async sendTestEvent(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
  ): Promise<WebhookDeliveryEnvelope> {
    return { data: await this.webhooks.sendTest(scope, id) };
  }

  @Access(WEBHOOKS_ACCESS)
  @Get(':id/deliveries')
  @ApiOperation({
    summary: "List a webhook endpoint's deliveries",
    description:
      'Newest first: each event sent to the endpoint, how its latest attempt went, and its `attempts`, newest first, failed ones included ' +
      "(each with its response status, at most 1 KiB of the response body, duration, error and time), as a receiver's logs would show them.",
  })
  @ApiOkResponse({ type: WebhookDeliveryListResponse, description: 'One page of deliveries' })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  listDeliveries(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
    @Query() query: FinanceListQuery,
  ): Promise<WebhookDeliveryListResponse> {
    return this.webhooks.deliveriesOf(scope, id, query);
  }

  @Access(WEBHOOKS_ACCESS)
  @Post(':id/deliveries/:deliveryId/retry')
  @Idempotent()
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({
    summary: 'Retry a delivery',
    description:
      "Due now, off the request: one more attempt, whatever the delivery's state. 409 while an attempt of it is under way.",
  })
  @ApiAcceptedResponse({ type: WebhookDeliveryEnvelope, description: 'The delivery, pending' })
  @ApiErrorResponses(400, 401, 403, 404, 409, 413, 415, 422, 500, 503)
  async retryDelivery(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
    @Param('deliveryId', ParseObjectIdPipe) deliveryId: string,
  ): Promise<WebhookDeliveryEnvelope> {
    return { data: await this.webhooks.retry(scope, id, deliveryId) };
  }
}
