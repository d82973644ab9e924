import { Access, type AccessPolicy } from '../access/policy/access-policy';
import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import type { Principal } from '../tenancy/principal';
import { Caller, Tenant } from '../tenancy/tenancy.decorators';
import type { TenantScope } from '../tenancy/tenant-scope';
import { EventEnvelope, EventListResponse } from './dto/event.response';
import { EVENT_ID_PATTERN, ListEventsQuery } from './dto/list-events.query';
import { EventsService } from './events.service';
import { EventIdPipe } from './event-id.pipe';
import { readableEventTypes } from './event-types';

/** The access policy the routes below share; a route that asks more adds it beside its handler. */
const EVENTS_ACCESS: AccessPolicy = {
  credentials: ['userToken', 'session', 'secretKey'],
  scope: 'project',
  api: 'events',
  assurance: 'accountMfa',
};

@ApiTags('events')
@Controller('v1/events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Access(EVENTS_ACCESS)
  @Get()
  @ApiOperation({
    summary: 'List events',
    description:
      'What the changes of this platform project recorded, newest first, `limit` per page (default 20, max 100); pass the last id seen as ' +
      "`startingAfter`. Filter by `type`, by the `object` an event is about (a payment's timeline) and by creation time. Events are kept 30 days (`EVENT_RETENTION_DAYS`). " +
      'An API key lists only the events of the APIs its scopes include (`customer.*` needs `customers`).',
  })
  @ApiOkResponse({ type: EventListResponse, description: 'One page of events' })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  listEvents(
    @Tenant() scope: TenantScope,
    @Caller() caller: Principal,
    @Query() query: ListEventsQuery,
  ): Promise<EventListResponse> {
    return this.events.list(scope, query, readableEventTypes(caller));
  }

  @Access(EVENTS_ACCESS)
  @Get(':id')
  @ApiOperation({
    summary: 'Get an event',
    description:
      "Another project's event is 404, as a missing one, and so is, for an API key, an event of an API outside its scopes.",
  })
  @ApiParam({ name: 'id', schema: { type: 'string', pattern: EVENT_ID_PATTERN, maxLength: 28 } })
  @ApiOkResponse({ type: EventEnvelope, description: 'The event' })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  async getEvent(
    @Tenant() scope: TenantScope,
    @Caller() caller: Principal,
    @Param('id', EventIdPipe) id: string,
  ): Promise<EventEnvelope> {
    return { data: await this.events.get(scope, id, readableEventTypes(caller)) };
  }
}
