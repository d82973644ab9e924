import { Injectable, InternalServerErrorException } from '@nestjs/common';
import { AssetsService } from '../assets/assets.service';
import type { FastifyRequest } from 'fastify';
import { ChannelsService } from '../channels/channels.service';
import { CollaboratorsService } from '../collaborators/collaborators.service';
import { isValidObjectId } from '../common/pipes/object-id';
import { type ProjectPlace, ProjectsService } from '../projects/projects.service';
import type { RequestContext } from '../tenancy/principal';
import type { TenantScope } from '../tenancy/tenant-scope';
import type { ChannelRequirement, ChannelRoleName } from './policy/access-policy';

/**
 * A policy's channel role, asked of the modules that own channels, projects and collaborators
 * through what they export. A platform admin (the account's owner, an admin, a secret key) needs
 * none. A malformed id and an unknown channel or project, another tenant's among them, are left to
 * the route, which answers them 400 and 404 before any role is asked, and so is a move's destination
 * that is no channel of the scope; a channel of the scope refuses a caller below the role with 403
 * `channel_role_required`, in the record's channel first, then in the destination's.
 */
@Injectable()
export class ChannelRoles {
  constructor(
    private readonly channels: ChannelsService,
    private readonly collaborators: CollaboratorsService,
    private readonly projects: ProjectsService,
    private readonly assets: AssetsService,
  ) {}

  async assert(request: FastifyRequest & RequestContext, requirement: ChannelRequirement): Promise<void> {
    const { account, principal, tenant } = request;
    if (!account || !principal || !tenant)
      throw new InternalServerErrorException('A channel role is declared on a route without a project scope');
    if (account.owner || account.role === 'admin') return;
    const id = (request.params as Record<string, unknown> | undefined)?.[requirement.param];
    if (!isValidObjectId(id)) return;
    const place = await this.placeOf(tenant, requirement.from, id.toLowerCase());
    if (!place) return;
    const body = isRecord(request.body) ? request.body : {};
    const role = roleOf(requirement, place, body);
    if (!role) return;
    const destination = requirement.destination && destinationOf(body[requirement.destination.field], place);
    if (destination && !(await this.channels.exists(tenant, destination))) return;
    const actor = { admin: false, userId: principal.kind === 'user' ? principal.userId : null };
    await this.collaborators.assertRole(tenant, actor, [place.channelId], role);
    if (destination) await this.collaborators.assertRole(tenant, actor, [destination], requirement.destination!.role);
  }

  /** Where the parameter leads: the channel itself, or through its content project; null when the scope has no such record. */
  private async placeOf(
    scope: TenantScope,
    from: ChannelRequirement['from'],
    id: string,
  ): Promise<ProjectPlace | null> {
    if (from === 'channel')
      return (await this.channels.exists(scope, id)) ? { channelId: id, parentId: null, deleting: false } : null;
    const projectId = from === 'asset' ? await this.assets.projectIdOf(scope, id) : id;
    return projectId ? this.projects.placeOf(scope, projectId) : null;
  }
}

/** The role the requirement asks on this record and body; null when the route does not know the record. */
export function roleOf(
  requirement: ChannelRequirement,
  place: ProjectPlace,
  body: Readonly<Record<string, unknown>>,
): ChannelRoleName | null {
  if (typeof requirement.role !== 'string') return requirement.role.of({ ...place, body });
  return place.deleting ? null : requirement.role;
}

/** The other channel a destination field names; none when it names the record's own channel or is no id (validation answers that). */
export function destinationOf(value: unknown, place: ProjectPlace): string | null {
  if (!isValidObjectId(value)) return null;
  const channelId = value.toLowerCase();
  return channelId === place.channelId ? null : channelId;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
