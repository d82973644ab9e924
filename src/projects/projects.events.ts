/** This module's in-process events; names, payloads and answers are declared in src/in-process-events/in-process-events.ts. */
export { PROJECTS_DELETED, type ProjectsDeletedEvent } from '../in-process-events/in-process-events';
