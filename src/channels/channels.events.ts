/** This module's in-process events; names, payloads and answers are declared in src/in-process-events/in-process-events.ts. */
export {
  CHANNEL_CREATED,
  CHANNEL_DELETING,
  CHANNEL_DELETED,
  type ChannelActor,
  type ChannelCreatedEvent,
  type ChannelDeletedEvent,
} from '../in-process-events/in-process-events';
