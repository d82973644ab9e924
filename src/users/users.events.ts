/**
 * Emitted (awaited, with `emitAsync`) after a user is deleted: what belongs to the person alone
 * (their search history) goes with them. A listener that fails makes the deletion's caller fail,
 * and deleting again runs every listener again, so each one is idempotent.
 */
export const USER_DELETED = 'user.deleted';

export interface UserDeletedEvent {
  userId: string;
}
