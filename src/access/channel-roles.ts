import { Injectable, InternalServerErrorException } from '@nestjs/common';
import { AssetsService } from '../assets/assets.service';
import type { FastifyRequest } from 'fastify';
import { ChannelsService } from '../channels/channels.service';
import { CollaboratorsService } from '../collaborators/collaborators.service';
import { ProjectsService } from '../projects/projects.service';
import type { RequestContext } from '../tenancy/principal';
import type { TenantScope } from '../tenancy/tenant-scope';
import type { ChannelRequirement } from './policy/access-policy';

const OBJECT_ID = /^[0-9a-f]{24}$/i;

/**
 * A policy's channel role, asked of the modules that own channels and collaborators through what
 * they export. A platform admin (the account's owner, an admin, a secret key) needs none. A
 * malformed id and an unknown channel or project, another tenant's among them, are left to the
 * route, which answers them 400 and 404 before any role is asked; a channel of the scope refuses a
 * caller below the role with 403 `channel_role_required`.
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
    if (typeof id !== 'string' || !OBJECT_ID.test(id)) return;
    const channelId = await this.channelOf(tenant, requirement.from, id);
    if (!channelId) return;
    await this.collaborators.assertRole(
      tenant,
      { admin: false, userId: principal.kind === 'user' ? principal.userId : null },
      [channelId],
      requirement.role,
    );
  }

  /** The channel the parameter names, itself or through its content project; null when the scope has no such record. */
  private async channelOf(scope: TenantScope, from: ChannelRequirement['from'], id: string): Promise<string | null> {
    if (from === 'channel') return (await this.channels.exists(scope, id)) ? id : null;
    const projectId = from === 'asset' ? await this.assets.projectIdOf(scope, id) : id;
    if (!projectId) return null;
    const project = await this.projects.findRecord(scope, projectId);
    return project ? String(project.channelId) : null;
  }
}
