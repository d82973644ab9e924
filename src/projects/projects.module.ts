import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { ChannelsModule } from '../channels/channels.module';
import { Project, ProjectSchema } from './project.schema';
import { ProjectsController } from './projects.controller';
import { ProjectsListener } from './projects.listener';
import { ProjectsRepository } from './projects.repository';
import { ProjectsService } from './projects.service';

@Module({
  imports: [MongooseModule.forFeature([{ name: Project.name, schema: ProjectSchema }]), ChannelsModule],
  controllers: [ProjectsController],
  providers: [ProjectsService, ProjectsListener, ProjectsRepository],
  exports: [ProjectsService],
})
export class ProjectsModule {}
