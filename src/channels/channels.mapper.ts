import type { Channel, MembershipTier } from './channel.schema';
import type { ChannelResponse, MembershipTierResponse } from './dto/channel.response';

function toMembershipTierResponse(tier: MembershipTier): MembershipTierResponse {
  return {
    name: tier.name,
    ...(tier.description != null ? { description: tier.description } : {}),
    price: tier.price,
    ...(tier.features != null ? { features: [...tier.features] } : {}),
  };
}

/** Exactly the contract's channel fields; the internal username key is not among them. */
export function toChannelResponse(channel: Channel): ChannelResponse {
  return {
    _id: String(channel._id),
    clientId: String(channel.clientId),
    name: channel.name,
    username: channel.username,
    avatarUrl: channel.avatarUrl,
    role: channel.role,
    projectIds: (channel.projectIds ?? []).map(String),
    membershipsEnabled: channel.membershipsEnabled ?? false,
    membershipTiers: (channel.membershipTiers ?? []).map(toMembershipTierResponse),
    monetizationEnabled: channel.monetizationEnabled ?? false,
    revenue: channel.revenue ?? 0,
    createdAt: new Date(channel.createdAt).toISOString(),
    updatedAt: new Date(channel.updatedAt).toISOString(),
  };
}
