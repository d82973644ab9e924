import { ConflictException, Injectable } from '@nestjs/common';
import { OnInProcessEvent } from '../in-process-events/in-process-events';
import { CLIENT_HARD_DELETING, ClientHardDeletingEvent } from '../clients/clients.events';
import { PLATFORM_PROJECT_DELETING, PlatformProjectDeletingEvent } from '../platform-projects/platform-projects.events';
import { ChannelsService } from './channels.service';

@Injectable()
export class ChannelsListener {
  constructor(private readonly channels: ChannelsService) {}

  /**
   * A client that still owns channels cannot be hard-deleted: the error travels back through the
   * awaited emit and the delete answers 409 without removing anything. `suppressErrors: false`
   * because the event-emitter module swallows listener errors by default.
   */
  @OnInProcessEvent(CLIENT_HARD_DELETING, { suppressErrors: false })
  async onClientHardDeleting(event: ClientHardDeletingEvent): Promise<void> {
    if (await this.channels.clientOwnsChannels(event.scope, event.clientId)) {
      throw new ConflictException('Client still owns channels');
    }
  }

  /** A platform project that still holds channels is not empty: the answer `true` refuses its delete. */
  @OnInProcessEvent(PLATFORM_PROJECT_DELETING, { suppressErrors: false })
  holdsRecords(event: PlatformProjectDeletingEvent): Promise<boolean> {
    return this.channels.holdsRecords(event.scope);
  }
}
