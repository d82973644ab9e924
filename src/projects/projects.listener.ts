import { Injectable } from '@nestjs/common';
import { OnInProcessEvent } from '../in-process-events/in-process-events';
import { CHANNEL_DELETED, CHANNEL_DELETING, ChannelDeletedEvent } from '../channels/channels.events';
import { PLATFORM_PROJECT_DELETING, PlatformProjectDeletingEvent } from '../platform-projects/platform-projects.events';
import { ProjectsService } from './projects.service';

@Injectable()
export class ProjectsListener {
  constructor(private readonly projects: ProjectsService) {}

  /** A channel's cascade is recorded before the channel goes; an error keeps the channel. */
  @OnInProcessEvent(CHANNEL_DELETING, { suppressErrors: false })
  async onChannelDeleting(event: ChannelDeletedEvent): Promise<void> {
    await this.projects.beginChannelCascade(event.scope, event.channelId);
  }

  /** A channel's projects go with it. Errors reach the awaited emit, so the delete does not answer 200 regardless. */
  @OnInProcessEvent(CHANNEL_DELETED, { suppressErrors: false })
  async onChannelDeleted(event: ChannelDeletedEvent): Promise<void> {
    await this.projects.removeAllOfChannel(event.scope, event.channelId);
  }

  /** A platform project that still holds content projects is not empty: the answer `true` refuses its delete. */
  @OnInProcessEvent(PLATFORM_PROJECT_DELETING, { suppressErrors: false })
  holdsRecords(event: PlatformProjectDeletingEvent): Promise<boolean> {
    return this.projects.holdsRecords(event.scope);
  }
}
