import { Injectable } from '@nestjs/common';
import { OnInProcessEvent } from '../in-process-events/in-process-events';
import {
  CHANNEL_CREATED,
  CHANNEL_DELETED,
  type ChannelCreatedEvent,
  type ChannelDeletedEvent,
} from '../channels/channels.events';
import { MEMBER_LEAVING, type MemberLeavingEvent } from '../accounts/accounts.events';
import { CollaboratorsService } from './collaborators.service';

@Injectable()
export class CollaboratorsListener {
  constructor(private readonly collaborators: CollaboratorsService) {}

  /** The creator of a channel is its owner. Errors reach the awaited emit, which withdraws the channel. */
  @OnInProcessEvent(CHANNEL_CREATED, { suppressErrors: false })
  onChannelCreated(event: ChannelCreatedEvent): Promise<void> {
    return this.collaborators.addCreator(event.scope, event.channelId);
  }

  /** A member leaving the account leaves its channels; an error keeps them a member. */
  @OnInProcessEvent(MEMBER_LEAVING, { suppressErrors: false })
  onMemberLeaving(event: MemberLeavingEvent): Promise<void> {
    return this.collaborators.memberLeaving(event);
  }

  /** A channel's collaborators go with it. */
  @OnInProcessEvent(CHANNEL_DELETED, { suppressErrors: false })
  onChannelDeleted(event: ChannelDeletedEvent): Promise<void> {
    return this.collaborators.removeAllOfChannel(event.scope, event.channelId);
  }
}
