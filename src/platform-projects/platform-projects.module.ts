import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { PlatformProject, PlatformProjectSchema } from './platform-project.schema';
import { PlatformProjectsController } from './platform-projects.controller';
import { PlatformProjectsRepository } from './platform-projects.repository';
import { PlatformProjectsService } from './platform-projects.service';
import { ProjectLookup } from '../tenancy/tenancy-lookups';

@Module({
  imports: [MongooseModule.forFeature([{ name: PlatformProject.name, schema: PlatformProjectSchema }])],
  controllers: [PlatformProjectsController],
  providers: [
    PlatformProjectsRepository,
    PlatformProjectsService,
    // The tenancy guard (src/tenancy) resolves projects through this, without importing this module.
    { provide: ProjectLookup, useExisting: PlatformProjectsService },
  ],
  exports: [PlatformProjectsService, ProjectLookup],
})
export class PlatformProjectsModule {}
