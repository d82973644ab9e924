import type { TenantScope } from '../tenancy/tenant-scope';

/** Emitted (awaited, with `emitAsync`) after a channel is deleted, so its projects go with it. */
export const CHANNEL_DELETED = 'channel.deleted';

export interface ChannelDeletedEvent {
  scope: TenantScope;
  channelId: string;
}
