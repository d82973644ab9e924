import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { ClientsModule } from '../clients/clients.module';
import { Channel, ChannelSchema } from './channel.schema';
import { ChannelsController } from './channels.controller';
import { ChannelsListener } from './channels.listener';
import { ChannelsService } from './channels.service';

@Module({
  imports: [MongooseModule.forFeature([{ name: Channel.name, schema: ChannelSchema }]), ClientsModule],
  controllers: [ChannelsController],
  providers: [ChannelsService, ChannelsListener],
  exports: [ChannelsService],
})
export class ChannelsModule {}
