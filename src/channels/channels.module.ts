import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { ClientsModule } from '../clients/clients.module';
import { Channel, ChannelSchema } from './channel.schema';
import { ChannelsController } from './channels.controller';
import { ChannelsListener } from './channels.listener';
import { ChannelsRepository } from './channels.repository';
import { ChannelsService } from './channels.service';

@Module({
  imports: [MongooseModule.forFeature([{ name: Channel.name, schema: ChannelSchema }]), ClientsModule],
  controllers: [ChannelsController],
  providers: [ChannelsService, ChannelsListener, ChannelsRepository],
  exports: [ChannelsService],
})
export class ChannelsModule {}
