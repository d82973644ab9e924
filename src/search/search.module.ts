/**
 * The invariant: every query the index answers names the caller's platform project in its SQL, and
 * every row carries its platform project, so no search reads another tenant's record; a record's
 * row is replaced only by a later version of it (a gone record keeps the version that removed it),
 * so the feed may apply an event twice, late or out of order and the row still ends as the record's
 * latest known state; an index whose cursor is older than the events kept is rebuilt from the records.
 */
import { type DynamicModule, Module } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { searchConfig } from '../config/search.config';
import { CustomersModule } from '../customers/customers.module';
import { PaymentsModule } from '../payments/payments.module';
import { ProjectsModule } from '../projects/projects.module';
import { SharingModule } from '../sharing/sharing.module';
import { SearchHistoryModule } from '../search-history/search-history.module';
import {
  CustomerSearchController,
  PaymentSearchController,
  ProjectSearchController,
  ViewerSearchController,
} from './search.controller';
import { SEARCH_INDEX } from './search-index';
import { SearchIndexer } from './search-indexer';
import { SearchService } from './search.service';
import { SqliteSearchIndex } from './sqlite-search-index';

const indexProvider = {
  provide: SEARCH_INDEX,
  inject: [searchConfig.KEY],
  useFactory: (config: ConfigType<typeof searchConfig>) => new SqliteSearchIndex(config.file),
};

/**
 * Search: the index of content projects, customers and payments (one SQLite FTS5 file per instance,
 * behind the `SearchIndex` port), fed by the events list and rebuilt from the records through the
 * owning modules' ports; and the four search routes, whose results those modules read and map.
 */
@Module({
  imports: [ProjectsModule, CustomersModule, PaymentsModule, SharingModule, SearchHistoryModule],
  controllers: [ProjectSearchController, ViewerSearchController, CustomerSearchController, PaymentSearchController],
  providers: [indexProvider, SearchIndexer, SearchService],
  exports: [SearchService],
})
export class SearchModule {
  /** For `npm run search:reindex`: the modules whose ports a rebuild reads, without the routes or the feed. */
  static forCommand(): DynamicModule {
    return { module: SearchCommandModule, imports: [ProjectsModule, CustomersModule, PaymentsModule] };
  }
}

@Module({})
class SearchCommandModule {}
