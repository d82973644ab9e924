import type { TenantScope } from '../tenancy/tenant-scope';

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
 * Emitted (awaited) before a channel is deleted at a caller's request: the collaborators module
 * refuses (403) a caller who is neither the channel's owner nor a platform admin, and nothing is deleted.
 */
export const CHANNEL_DELETING = 'channel.deleting';

export interface ChannelDeletingEvent {
  scope: TenantScope;
  channelId: string;
  actor: ChannelActor;
}

/** Emitted (awaited) after a channel is created, so its creator becomes its owner; an error withdraws the channel. */
export const CHANNEL_CREATED = 'channel.created';

export interface ChannelCreatedEvent {
  scope: TenantScope;
  channelId: string;
}
