import { Injectable } from '@nestjs/common';
import { OnInProcessEvent } from '../in-process-events/in-process-events';
import { PLATFORM_PROJECT_DELETING, PlatformProjectDeletingEvent } from '../platform-projects/platform-projects.events';
import { ClientsService } from './clients.service';

@Injectable()
export class ClientsListener {
  constructor(private readonly clients: ClientsService) {}

  /** A platform project that still holds clients (soft-deleted ones too) is not empty: the answer `true` refuses its delete. */
  @OnInProcessEvent(PLATFORM_PROJECT_DELETING, { suppressErrors: false })
  holdsRecords(event: PlatformProjectDeletingEvent): Promise<boolean> {
    return this.clients.holdsRecords(event.scope);
  }
}
