/**
 * Emitted (awaited, with `emitAsync`) before a client is hard-deleted. A listener that finds the
 * client still referenced throws a ConflictException, and the delete does not happen.
 */
export const CLIENT_HARD_DELETING = 'client.hard-deleting';

export interface ClientHardDeletingEvent {
  clientId: string;
}
