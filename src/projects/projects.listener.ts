import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { CHANNEL_DELETED, CHANNEL_DELETING, ChannelDeletedEvent } from '../channels/channels.events';
import { CONTENT_PROJECT_CHANNEL_LOOKUP, CONTENT_PROJECTS_LOOKUP, type ContentProjectChannelLookupEvent, ContentProjectsLookupEvent } from '../clients/clients.events';
import { PLATFORM_PROJECT_DELETING, PlatformProjectDeletingEvent } from '../platform-projects/platform-projects.events';
import { ProjectsService } from './projects.service';

@Injectable()
export class ProjectsListener {
  constructor(private readonly projects: ProjectsService) {}

  /** A channel's cascade is recorded before the channel goes; an error keeps the channel. */
  @OnEvent(CHANNEL_DELETING, { suppressErrors: false })
  async onChannelDeleting(event: ChannelDeletedEvent): Promise<void> {
    await this.projects.beginChannelCascade(event.scope, event.channelId);
  }

  /** A channel's projects go with it. Errors reach the awaited emit, so the delete does not answer 200 regardless. */
  @OnEvent(CHANNEL_DELETED, { suppressErrors: false })
  async onChannelDeleted(event: ChannelDeletedEvent): Promise<void> {
    await this.projects.removeAllOfChannel(event.scope, event.channelId);
  }

  /** Whether every id names a content project of the scope's platform project (a channel or client write asks). */
  @OnEvent(CONTENT_PROJECTS_LOOKUP, { suppressErrors: false })
  allExist(event: ContentProjectsLookupEvent): Promise<boolean> {
    return this.projects.allExist(event.scope, event.projectIds);
  }

  /** The channel of a content project of the scope's platform project; null for an unknown one (an asset's write asks). */
  @OnEvent(CONTENT_PROJECT_CHANNEL_LOOKUP, { suppressErrors: false })
  async channelOf(event: ContentProjectChannelLookupEvent): Promise<string | null> {
    const project = await this.projects.findRecord(event.scope, event.projectId);
    return project ? String(project.channelId) : null;
  }

  /** A platform project that still holds content projects is not empty: the answer `true` refuses its delete. */
  @OnEvent(PLATFORM_PROJECT_DELETING, { suppressErrors: false })
  holdsRecords(event: PlatformProjectDeletingEvent): Promise<boolean> {
    return this.projects.holdsRecords(event.scope);
  }
}
