import { Access } from '../access/policy/access-policy';
import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { FinanceListQuery } from '../common/paging/finance-list.query';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import { EVENT_ID_PATTERN } from '../events/dto/list-events.query';
import { EventIdPipe } from '../events/event-id.pipe';
import { Tenant } from '../tenancy/tenancy.decorators';
import type { TenantScope } from '../tenancy/tenant-scope';
import { WebhookDeliveryListResponse } from './dto/webhook-endpoint.response';
import { WebhooksService } from './webhooks.service';

/** One event's deliveries, across the project's endpoints: served here, where deliveries are kept. */
@ApiTags('webhooks')
@Controller('v1/events')
export class EventDeliveriesController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Access({
    credentials: ['userToken', 'session', 'secretKey'],
    scope: 'project',
    api: 'webhooks',
    assurance: 'accountMfa',
    roles: ['admin'],
  })
  @Get(':id/deliveries')
  @ApiOperation({
    summary: "List an event's deliveries",
    description:
      'Newest first: the event on its way to each endpoint of the project that subscribed to it (`endpointId`), how its latest attempt ' +
      'went, when the next one is due, and its `attempts`, newest first. Admins and keys of the project, as for endpoints; ' +
      "another project's event is 404, as a missing one.",
  })
  @ApiParam({ name: 'id', schema: { type: 'string', pattern: EVENT_ID_PATTERN, maxLength: 28 } })
  @ApiOkResponse({ type: WebhookDeliveryListResponse, description: 'One page of deliveries' })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  listEventDeliveries(
    @Tenant() scope: TenantScope,
    @Param('id', EventIdPipe) id: string,
    @Query() query: FinanceListQuery,
  ): Promise<WebhookDeliveryListResponse> {
    return this.webhooks.deliveriesOfEvent(scope, id, query);
  }
}
