import { hostname } from 'node:os';
import { join } from 'node:path';
import { configNamespace } from './namespace';

/** The search index (docs/search.md): where this instance keeps it and how it follows the events. */
export const searchConfig = configNamespace('search', (env) => {
  const instance = env.SEARCH_INSTANCE ?? `${hostname().replace(/[^A-Za-z0-9._-]/g, '_')}-${env.PORT}`;
  return {
    file: join(env.DATA_DIR, 'search', `${instance}.sqlite`),
    /** Events older than this are gone: an index whose cursor is older missed some, and is rebuilt. */
    retentionDays: env.EVENT_RETENTION_DAYS,
    /** How often the instance reads the events that other instances recorded. */
    pollIntervalMs: 1000,
    /**
     * How far behind the present the cursor stays: an event's id is made before its write and it is
     * listed after, so events of writes still under way on other instances can be listed with ids
     * below the newest one read. The feed reads this span again on every poll.
     */
    listingGraceMs: 5_000,
    /**
     * How far behind its cursor the feed reads again, every `recheckIntervalMs`: an event is listed
     * after its id was made (by its request, or by the events sweep up to a minute later), so one
     * listed late can have an id below the cursor.
     */
    recheckWindowMs: 5 * 60_000,
    recheckIntervalMs: 30_000,
  };
});

export type SearchConfig = ReturnType<typeof searchConfig.build>;
