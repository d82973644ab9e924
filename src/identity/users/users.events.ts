/** This module's in-process events; names, payloads and answers are declared in src/in-process-events/in-process-events.ts. */
export { USER_DELETED, type UserDeletedEvent } from '../../in-process-events/in-process-events';
