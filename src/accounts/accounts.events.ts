import type { Types } from 'mongoose';

/** Emitted (awaited) when an account is created: its default platform project must exist before anyone uses it. */
export const ACCOUNT_CREATED = 'account.created';
export interface AccountCreatedEvent {
  accountId: Types.ObjectId;
  defaultProjectId: Types.ObjectId;
}
