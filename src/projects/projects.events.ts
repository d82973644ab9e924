/** This module's in-process events; names, payloads and answers are declared in src/events/in-process-events.ts. */
export { PROJECTS_DELETED, type ProjectsDeletedEvent } from '../events/in-process-events';
