/** This module's in-process events; names, payloads and answers are declared in src/events/in-process-events.ts. */
export { CUSTOMER_DELETING, type CustomerDeletingEvent } from '../events/in-process-events';
