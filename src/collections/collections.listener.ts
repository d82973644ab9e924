import { Injectable } from '@nestjs/common';
import { OnInProcessEvent } from '../in-process-events/in-process-events';
import { PLATFORM_PROJECT_DELETING, PlatformProjectDeletingEvent } from '../platform-projects/platform-projects.events';
import { CollectionsService } from './collections.service';

@Injectable()
export class CollectionsListener {
  constructor(private readonly collections: CollectionsService) {}

  /** A platform project that still holds collections (soft-deleted ones too) is not empty: the answer `true` refuses its delete. */
  @OnInProcessEvent(PLATFORM_PROJECT_DELETING, { suppressErrors: false })
  holdsRecords(event: PlatformProjectDeletingEvent): Promise<boolean> {
    return this.collections.holdsRecords(event.scope);
  }
}
