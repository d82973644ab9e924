import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { AccountsModule } from '../accounts/accounts.module';
import { ChannelsModule } from '../channels/channels.module';
import { ClockModule } from '../common/clock/clock';
import { LeasesModule } from '../leases/leases.module';
import { Collaborator, CollaboratorSchema } from './collaborator.schema';
import { CollaboratorsController } from './collaborators.controller';
import { CollaboratorsListener } from './collaborators.listener';
import { CollaboratorsRepository } from './collaborators.repository';
import { CollaboratorsService } from './collaborators.service';

@Module({
  imports: [MongooseModule.forFeature([{ name: Collaborator.name, schema: CollaboratorSchema }]), ChannelsModule, AccountsModule, ClockModule, LeasesModule],
  controllers: [CollaboratorsController],
  providers: [CollaboratorsService, CollaboratorsRepository, CollaboratorsListener],
  exports: [CollaboratorsService],
})
export class CollaboratorsModule {}
