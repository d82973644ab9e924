import type { TenantScope } from '../tenancy/tenant-scope';

/**
 * Emitted (awaited) just before a channel's record is deleted, so what goes with it is recorded
 * first (the projects module writes the cascade's record): a stop between the two leaves that
 * record to finish the cascade. An error stops the delete, the channel kept.
 */
export const CHANNEL_DELETING = 'channel.deleting';

/** Emitted (awaited, with `emitAsync`) after a channel is deleted, so its projects go with it. */
export const CHANNEL_DELETED = 'channel.deleted';

export interface ChannelDeletedEvent {
  scope: TenantScope;
  channelId: string;
}

/** Who asks for a change of a channel, as the collaborators module judges it (`ContentActor`). */
export interface ChannelActor {
  readonly admin: boolean;
  readonly userId: string | null;
}

/**
 * Emitted (awaited) before a caller changes a channel (`manager` to update it, `owner` to delete it):
 * the collaborators module refuses (403) a caller below `role` in that channel who is not a platform
 * admin, and nothing is written.
 */
export const CHANNEL_CHANGING = 'channel.changing';

export interface ChannelChangingEvent {
  scope: TenantScope;
  channelId: string;
  actor: ChannelActor;
  role: 'manager' | 'owner';
}

/** Emitted (awaited) after a channel is created, so its creator becomes its owner; an error withdraws the channel. */
export const CHANNEL_CREATED = 'channel.created';

export interface ChannelCreatedEvent {
  scope: TenantScope;
  channelId: string;
}
