import { Injectable, NotFoundException } from '@nestjs/common';
import { toPage, type Page } from '../common/paging/finance-list.query';
import type { TenantScope } from '../tenancy/tenant-scope';
import type { EventResponse } from './dto/event.response';
import type { ListEventsQuery } from './dto/list-events.query';
import type { StoredEvent } from './event.schema';
import type { RecordedEventType } from './event-types';
import { EventsRepository } from './events.repository';

export const EVENT_NOT_FOUND = 'Event not found';

/** The event list of a platform project: what its changes recorded, newest first. */
@Injectable()
export class EventsService {
  constructor(private readonly events: EventsRepository) {}

  /**
   * A change's request publishes its events before it answers: a caller sees those of the changes it
   * made. `types`: the types the caller may read (`readableEventTypes`), null for every one.
   */
  async list(
    scope: TenantScope,
    query: ListEventsQuery,
    types: readonly RecordedEventType[] | null,
  ): Promise<Page<EventResponse>> {
    return toPage(await this.events.page(scope, query, types), query.limit, toEventResponse);
  }

  async get(scope: TenantScope, id: string, types: readonly RecordedEventType[] | null): Promise<EventResponse> {
    const event = await this.events.findById(scope, id);
    if (!event || (types !== null && !types.includes(event.type as RecordedEventType)))
      throw new NotFoundException(EVENT_NOT_FOUND);
    return toEventResponse(event);
  }
}

function toEventResponse(event: StoredEvent): EventResponse {
  return JSON.parse(event.body) as EventResponse;
}
