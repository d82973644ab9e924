import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { PlatformProject, PlatformProjectSchema } from './platform-project.schema';
import { PlatformProjectsController } from './platform-projects.controller';
import { PlatformProjectsRepository } from './platform-projects.repository';
import { PlatformProjectsService } from './platform-projects.service';

@Module({
  imports: [MongooseModule.forFeature([{ name: PlatformProject.name, schema: PlatformProjectSchema }])],
  controllers: [PlatformProjectsController],
  providers: [
    PlatformProjectsRepository,
    PlatformProjectsService,
  ],
  exports: [PlatformProjectsService],
})
export class PlatformProjectsModule {}
