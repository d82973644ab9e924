import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { CHANNEL_DELETED, ChannelDeletedEvent } from '../channels/channels.events';
import { ProjectsService } from './projects.service';

@Injectable()
export class ProjectsListener {
  constructor(private readonly projects: ProjectsService) {}

  /** A channel's projects go with it. Errors reach the awaited emit, so the delete does not answer 200 regardless. */
  @OnEvent(CHANNEL_DELETED, { suppressErrors: false })
  async onChannelDeleted(event: ChannelDeletedEvent): Promise<void> {
    await this.projects.removeAllOfChannel(event.scope, event.channelId);
  }
}
