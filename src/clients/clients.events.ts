/** This module's in-process events; names, payloads and answers are declared in src/in-process-events/in-process-events.ts. */
export { CLIENT_HARD_DELETING, type ClientHardDeletingEvent } from '../in-process-events/in-process-events';

/** The 400 of a write whose `projectIds` names no content project of the platform project (another tenant's included). */
export const UNKNOWN_PROJECT_IDS = 'each value in projectIds must match an existing project';
