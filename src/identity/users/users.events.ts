/** This module's in-process events; names, payloads and answers are declared in src/events/in-process-events.ts. */
export { USER_DELETED, type UserDeletedEvent } from '../../events/in-process-events';
