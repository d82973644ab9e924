/** This module's in-process events; names, payloads and answers are declared in src/events/in-process-events.ts. */
export {
  PLATFORM_PROJECT_DELETED,
  PLATFORM_PROJECT_DELETING,
  type PlatformProjectDeletedEvent,
  type PlatformProjectDeletingEvent,
} from '../events/in-process-events';
