/** This module's in-process events; names, payloads and answers are declared in src/in-process-events/in-process-events.ts. */
export { CUSTOMER_DELETING, type CustomerDeletingEvent } from '../in-process-events/in-process-events';
