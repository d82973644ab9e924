import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { PlatformProject, PlatformProjectSchema } from './platform-project.schema';
import { PlatformProjectsController } from './platform-projects.controller';
import { PlatformProjectsRepository } from './platform-projects.repository';
import { PlatformProjectsService } from './platform-projects.service';
import { ProjectLookup } from '../tenancy/tenancy-lookups';

/**
 * Platform projects, the boundary of data inside an account, and the APIs each enables. Invariants:
 * every account has one default project, made with it, which cannot be deleted; a project that
 * still holds records of any data module (each is asked) cannot be deleted; a project of another
 * account is as absent as one that does not exist. The tenancy guard resolves a request's project
 * through `ProjectLookup`, without importing this module.
 */
@Module({
  imports: [MongooseModule.forFeature([{ name: PlatformProject.name, schema: PlatformProjectSchema }])],
  controllers: [PlatformProjectsController],
  providers: [
    PlatformProjectsRepository,
    PlatformProjectsService,
    // The access guard's tenancy (src/access) resolves projects through this, without importing this module.
    { provide: ProjectLookup, useExisting: PlatformProjectsService },
  ],
  exports: [PlatformProjectsService, ProjectLookup],
})
export class PlatformProjectsModule {}
