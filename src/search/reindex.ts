import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { searchConfig } from '../config/search.config';
import { CustomersService } from '../customers/customers.service';
import { runCommand } from '../migrations/command';
import { PaymentsService } from '../payments/payments.service';
import { ProjectsService } from '../projects/projects.service';
import { appConfig } from '../config/app.config';
import { assetsConfig } from '../config/assets.config';
import { mailConfig } from '../config/mail.config';
import { passkeysConfig } from '../config/passkeys.config';
import { rateLimitsConfig } from '../config/rate-limits.config';
import { sessionsConfig } from '../config/sessions.config';
import { rebuildIndex } from './search-indexer';
import { SearchModule } from './search.module';
import { SqliteSearchIndex } from './sqlite-search-index';

/**
 * `npm run search:reindex`: rebuilds from the records every search index file in `DATA_DIR/search/`
 * (each instance's; this environment's own when there is none yet). A running instance keeps
 * answering meanwhile, from a partial index until the rebuild ends, and goes on following the events.
 */
// The projects module brings the content modules, and they the accounts' and sessions': their settings too.
runCommand(
  'Search reindex',
  {
    imports: [SearchModule.forCommand()],
    config: [searchConfig, appConfig, assetsConfig, mailConfig, passkeysConfig, rateLimitsConfig, sessionsConfig],
  },
  async (context) => {
    const config = context.get<{ file: string; recheckWindowMs: number }>(searchConfig.KEY);
    const folder = dirname(config.file);
    const files = existsSync(folder)
      ? readdirSync(folder)
          .filter((name) => name.endsWith('.sqlite'))
          .map((name) => join(folder, name))
      : [];
    if (!files.includes(config.file)) files.push(config.file);
    const sources = {
      projects: context.get(ProjectsService, { strict: false }),
      customers: context.get(CustomersService, { strict: false }),
      payments: context.get(PaymentsService, { strict: false }),
    };
    const lines: string[] = [];
    for (const file of files) {
      const index = new SqliteSearchIndex(file);
      try {
        lines.push(`${basename(file)}: ${await rebuildIndex(index, sources, config.recheckWindowMs)} records`);
      } finally {
        index.close();
      }
    }
    return lines;
  },
);
