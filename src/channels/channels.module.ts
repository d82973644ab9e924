import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { ClientsModule } from '../clients/clients.module';
import { Channel, ChannelSchema } from './channel.schema';
import { ChannelsController } from './channels.controller';
import { ChannelsListener } from './channels.listener';
import { ChannelsRepository } from './channels.repository';
import { ChannelsService } from './channels.service';

/**
 * Channels of a client, in the content area. Invariants: a channel's `username` is unique within
 * its platform project (a unique index on the normalised `usernameKey`); its client is a live
 * client of the same project, asked again after the insert so that a client's hard delete and a new
 * channel never cross; the creator becomes the channel's owner (collaborators), and deleting a
 * channel deletes its content projects and collaborators (awaited in-process events).
 */
@Module({
  imports: [MongooseModule.forFeature([{ name: Channel.name, schema: ChannelSchema }]), ClientsModule],
  controllers: [ChannelsController],
  providers: [ChannelsService, ChannelsListener, ChannelsRepository],
  exports: [ChannelsService],
})
export class ChannelsModule {}
