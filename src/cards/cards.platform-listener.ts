import { Injectable } from '@nestjs/common';
import { OnInProcessEvent } from '../in-process-events/in-process-events';
import { PLATFORM_PROJECT_DELETING, PlatformProjectDeletingEvent } from '../platform-projects/platform-projects.events';
import { CardsRepository } from './cards.repository';

/**
 * The cards side of a platform project's delete: answers whether the project still holds any
 * (one indexed read). `suppressErrors: false`, so a failed read fails the delete instead of
 * passing for "empty".
 */
@Injectable()
export class CardsPlatformListener {
  constructor(private readonly cards: CardsRepository) {}

  @OnInProcessEvent(PLATFORM_PROJECT_DELETING, { suppressErrors: false })
  holdsRecords(event: PlatformProjectDeletingEvent): Promise<boolean> {
    return this.cards.holdsAny(event.scope);
  }
}
