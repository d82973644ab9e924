/** This module's in-process events; names, payloads and answers are declared in src/in-process-events/in-process-events.ts. */
export {
  ACCOUNT_CREATED,
  ACCOUNT_MFA_REQUIREMENT_CHANGED,
  MEMBER_LEAVING,
  type AccountCreatedEvent,
  type AccountMfaRequirementChangedEvent,
  type MemberLeavingEvent,
} from '../in-process-events/in-process-events';
