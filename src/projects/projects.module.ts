import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { AssetsModule } from '../assets/assets.module';
import { ProjectChannelLookup } from '../assets/assets.ports';
import { ChannelsModule } from '../channels/channels.module';
import { ContentProjectsLookup } from '../clients/clients.ports';
import { LeasesModule } from '../leases/leases.module';
import { CollaboratorsModule } from '../collaborators/collaborators.module';
import { Project, ProjectSchema } from './project.schema';
import { ProjectsController } from './projects.controller';
import { ProjectsListener } from './projects.listener';
import { ProjectsRepository } from './projects.repository';
import { ProjectsService } from './projects.service';

/**
 * Content projects of a channel, and their tree. Invariants: a project's `channelId` is the source
 * of truth and the channel's `projectIds` a copy kept in step by ordered writes; every `parentId`
 * names a project of the same channel, no project is its own ancestor and no chain is deeper than
 * four levels, with every change of the tree's shape run under the channel's tree lease; a subtree
 * is deleted from the bottom up, so a crash leaves a smaller tree, never an orphan
 * (ProjectsService). It answers what the modules below it ask of content projects (`ContentProjectsLookup`
 * for clients and channels, `ProjectChannelLookup` for assets), ports they declare and resolve
 * without importing this module.
 */
@Module({
  imports: [MongooseModule.forFeature([{ name: Project.name, schema: ProjectSchema }]), ChannelsModule, CollaboratorsModule, LeasesModule, AssetsModule],
  controllers: [ProjectsController],
  providers: [
    ProjectsService,
    ProjectsListener,
    ProjectsRepository,
    { provide: ContentProjectsLookup, useExisting: ProjectsService },
    { provide: ProjectChannelLookup, useExisting: ProjectsService },
  ],
  exports: [ProjectsService, ContentProjectsLookup, ProjectChannelLookup],
})
export class ProjectsModule {}
