import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { UsersModule } from '../identity/users/users.module';
import { SearchHistoryEntry, SearchHistoryEntrySchema } from './search-history-entry.schema';
import { SearchHistorySettings, SearchHistorySettingsSchema } from './search-history-settings.schema';
import { SearchHistoryController } from './search-history.controller';
import { SearchHistoryListener } from './search-history.listener';
import { SearchHistoryRepository } from './search-history.repository';
import { SearchHistoryService } from './search-history.service';

/**
 * Each user's dashboard searches, per account, and whether they paused recording: written through
 * `SearchHistoryService.record` (exported: the search routes' port, called for users only), read,
 * removed and paused by the user alone under `/api/v1/me/search-history`. Invariants: one entry per
 * search (a unique index on user, account and the search's key; a repeat moves it to the top); at
 * most 100 per user and account once concurrent recordings are done (each trims after its write,
 * sparing a search run again meanwhile; a recording stopped between the two leaves one extra until
 * the next, and the list never shows more than 100); 90 days after the last run (a TTL index on
 * `createdAt`); nothing of another user is ever answered (404); a deleted user's go with them
 * (`user.deleted`). Test: `test/e2e/search-history.e2e-spec.ts`.
 */
@Module({
  imports: [
    MongooseModule.forFeature([
      { name: SearchHistoryEntry.name, schema: SearchHistoryEntrySchema },
      { name: SearchHistorySettings.name, schema: SearchHistorySettingsSchema },
    ]),
    UsersModule,
  ],
  controllers: [SearchHistoryController],
  providers: [SearchHistoryRepository, SearchHistoryService, SearchHistoryListener],
  exports: [SearchHistoryService],
})
export class SearchHistoryModule {}
