import type { Collaborator } from './collaborator.schema';
import type { CollaboratorResponse } from './dto/collaborator.response';

export function toCollaboratorResponse(collaborator: Collaborator): CollaboratorResponse {
  return {
    _id: String(collaborator._id),
    channelId: String(collaborator.channelId),
    userId: String(collaborator.userId),
    role: collaborator.role,
    expiresAt: collaborator.expiresAt ? new Date(collaborator.expiresAt).toISOString() : null,
    createdAt: new Date(collaborator.createdAt).toISOString(),
    updatedAt: new Date(collaborator.updatedAt).toISOString(),
  };
}
