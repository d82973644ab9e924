/** This module's in-process events; names, payloads and answers are declared in src/in-process-events/in-process-events.ts. */
export {
  ACCOUNT_CREATED,
  ACCOUNT_MFA_REQUIREMENT_CHANGED,
  type AccountCreatedEvent,
  type AccountMfaRequirementChangedEvent,
} from '../in-process-events/in-process-events';
