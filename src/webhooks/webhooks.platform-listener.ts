import { Injectable } from '@nestjs/common';
import { OnInProcessEvent } from '../in-process-events/in-process-events';
import { PLATFORM_PROJECT_DELETING, PlatformProjectDeletingEvent } from '../platform-projects/platform-projects.events';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';

/** The webhooks side of a platform project's delete: a project with endpoints is not empty. */
@Injectable()
export class WebhooksPlatformListener {
  constructor(private readonly endpoints: WebhookEndpointsRepository) {}

  @OnInProcessEvent(PLATFORM_PROJECT_DELETING, { suppressErrors: false })
  holdsRecords(event: PlatformProjectDeletingEvent): Promise<boolean> {
    return this.endpoints.holdsAny(event.scope);
  }
}
