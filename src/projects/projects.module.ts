import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { AssetsModule } from '../assets/assets.module';
import { ProjectChannelLookup } from '../assets/assets.ports';
import { ChannelsModule } from '../channels/channels.module';
import { ContentProjectsLookup } from '../clients/clients.ports';
import { LeasesModule } from '../leases/leases.module';
import { CollaboratorsModule } from '../collaborators/collaborators.module';
import { ProjectCascades } from './project-cascades';
import { ProjectDeletion, ProjectDeletionSchema } from './project-deletion.schema';
import { ProjectDeletionsRepository } from './project-deletions.repository';
import { Project, ProjectSchema } from './project.schema';
import { ProjectsController } from './projects.controller';
import { ProjectsListener } from './projects.listener';
import { ProjectsRepository } from './projects.repository';
import { ProjectsService } from './projects.service';

/**
 * Content projects of a channel, and their tree. Invariants: a project's `channelId` is the source
 * of truth and the channel's `projectIds` a copy kept in step by ordered writes; every `parentId`
 * names a project of the same channel, no project is its own ancestor and no chain is deeper than
 * four levels, with every change of the tree's shape run under the channel's tree lease. A delete
 * (a project's, its subtree's, a channel's projects') is recorded before anything goes and its
 * assets and projects marked, so none is served or built under from then on; it is run again until
 * it completes, by a retry or any instance's sweep, so a crash leaves no orphan: no asset, byte,
 * share link or grant of a project that is gone (ProjectCascades). It answers what the modules
 * below it ask of content projects (`ContentProjectsLookup` for clients and channels,
 * `ProjectChannelLookup` for assets), ports they declare and resolve without importing this module.
 */
@Module({
  imports: [
    MongooseModule.forFeature([
      { name: Project.name, schema: ProjectSchema },
      { name: ProjectDeletion.name, schema: ProjectDeletionSchema },
    ]),
    ChannelsModule,
    CollaboratorsModule,
    LeasesModule,
    AssetsModule,
  ],
  controllers: [ProjectsController],
  providers: [
    ProjectsService,
    ProjectsListener,
    ProjectsRepository,
    ProjectDeletionsRepository,
    ProjectCascades,
    { provide: ContentProjectsLookup, useExisting: ProjectsService },
    { provide: ProjectChannelLookup, useExisting: ProjectsService },
  ],
  exports: [ProjectsService, ContentProjectsLookup, ProjectChannelLookup],
})
export class ProjectsModule {}
