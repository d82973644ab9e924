import { Injectable } from '@nestjs/common';
import { OnInProcessEvent } from '../in-process-events/in-process-events';
import { PLATFORM_PROJECT_DELETING, PlatformProjectDeletingEvent } from '../platform-projects/platform-projects.events';
import { CustomersRepository } from './customers.repository';

/**
 * The customers side of a platform project's delete: answers whether the project still holds any
 * (one indexed read). `suppressErrors: false`, so a failed read fails the delete instead of
 * passing for "empty".
 */
@Injectable()
export class CustomersPlatformListener {
  constructor(private readonly customers: CustomersRepository) {}

  @OnInProcessEvent(PLATFORM_PROJECT_DELETING, { suppressErrors: false })
  holdsRecords(event: PlatformProjectDeletingEvent): Promise<boolean> {
    return this.customers.holdsAny(event.scope);
  }
}
