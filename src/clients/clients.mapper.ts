import type { Client } from './client.schema';
import type { ClientResponse } from './dto/client.response';

/** Builds exactly the contract's client fields, ids as strings and dates as ISO strings. */
export function toClientResponse(client: Client): ClientResponse {
  return {
    _id: String(client._id),
    name: client.name,
    email: client.email,
    phone: client.phone ?? null,
    projectIds: (client.projectIds ?? []).map(String),
    createdAt: new Date(client.createdAt).toISOString(),
    updatedAt: new Date(client.updatedAt).toISOString(),
    deletedAt: client.deletedAt ? new Date(client.deletedAt).toISOString() : null,
  };
}
