import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { AccountsModule } from '../accounts/accounts.module';
import { ChannelsModule } from '../channels/channels.module';
import { ClockModule } from '../common/clock/clock';
import { LeasesModule } from '../leases/leases.module';
import { PlatformProjectsModule } from '../platform-projects/platform-projects.module';
import { Collaborator, CollaboratorSchema } from './collaborator.schema';
import { CollaboratorsController } from './collaborators.controller';
import { CollaboratorsListener } from './collaborators.listener';
import { CollaboratorsRepository } from './collaborators.repository';
import { CollaboratorsService } from './collaborators.service';

/**
 * A channel's collaborators: members of the account with one role each in the channel (`owner`,
 * `manager`, `editor`, `viewer`; a unique index on channel and user), optionally until `expiresAt`,
 * after which they count as none. `CollaboratorsService.assertRole` is the one check of who may
 * change a channel or its content projects: a platform admin, the account's owner or an API key
 * always, anyone else only with a live role at or above the one the write needs. The access guard
 * asks it for routes whose access policy names a channel role (src/access/channel-roles.ts).
 * A channel keeps a lasting owner: changes of owners run under the channel's lease, and a member
 * leaving the account leaves every channel, handing the ones only they owned to the account's owner.
 */
@Module({
  imports: [
    MongooseModule.forFeature([{ name: Collaborator.name, schema: CollaboratorSchema }]),
    ChannelsModule,
    AccountsModule,
    ClockModule,
    LeasesModule,
    PlatformProjectsModule,
  ],
  controllers: [CollaboratorsController],
  providers: [CollaboratorsService, CollaboratorsRepository, CollaboratorsListener],
  exports: [CollaboratorsService],
})
export class CollaboratorsModule {}
