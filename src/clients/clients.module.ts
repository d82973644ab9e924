import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { Client, ClientSchema } from './client.schema';
import { ClientsController } from './clients.controller';
import { ClientsListener } from './clients.listener';
import { ClientsRepository } from './clients.repository';
import { ClientsService } from './clients.service';

/**
 * The API consumers' clients, soft-deletable (`SoftDeletableRecords`): an update or soft delete
 * applies only to a live client and a restore only to a soft-deleted one, each one update guarded
 * on that state. Invariants beyond the tenant scope: `projectIds` name content projects of the same
 * platform project, and a client that still owns channels is never hard-deleted (it is marked
 * `deletingAt` first, so a channel created meanwhile sees the mark and withdraws). Whether content
 * projects exist it asks through `ContentProjectsLookup` (clients.ports.ts), which the projects
 * module provides: projects sit below clients, so this module never imports them.
 */
@Module({
  imports: [MongooseModule.forFeature([{ name: Client.name, schema: ClientSchema }])],
  controllers: [ClientsController],
  providers: [ClientsService, ClientsListener, ClientsRepository],
  exports: [ClientsService],
})
export class ClientsModule {}
