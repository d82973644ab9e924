import type { Types } from 'mongoose';

/** Emitted (awaited) when an account is created: its default platform project must exist before anyone uses it. */
export const ACCOUNT_CREATED = 'account.created';
export interface AccountCreatedEvent {
  accountId: Types.ObjectId;
  defaultProjectId: Types.ObjectId;
}

/**
 * Emitted (awaited) after an account's `requireMfa` changed: sessions acting in it keep a copy of the
 * flag, so a request of theirs needs no read of the account.
 */
export const ACCOUNT_MFA_REQUIREMENT_CHANGED = 'account.mfa_requirement_changed';
export interface AccountMfaRequirementChangedEvent {
  accountId: string;
  requireMfa: boolean;
}
