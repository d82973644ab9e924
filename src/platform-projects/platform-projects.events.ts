/** This module's in-process events; names, payloads and answers are declared in src/in-process-events/in-process-events.ts. */
export {
  PLATFORM_PROJECT_DELETED,
  PLATFORM_PROJECT_DELETING,
  type PlatformProjectDeletedEvent,
  type PlatformProjectDeletingEvent,
} from '../in-process-events/in-process-events';
