import type { TenantScope } from '../tenancy/tenant-scope';

/** Emitted (awaited, with `emitAsync`) after a channel is deleted, so its projects go with it. */
export const CHANNEL_DELETED = 'channel.deleted';

export interface ChannelDeletedEvent {
  scope: TenantScope;
  channelId: string;
}

/** Emitted (awaited) after a channel is created, so its creator becomes its owner; an error withdraws the channel. */
export const CHANNEL_CREATED = 'channel.created';

export interface ChannelCreatedEvent {
  scope: TenantScope;
  channelId: string;
}
