import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { searchConfig } from '../config/search.config';
import { CustomersService } from '../customers/customers.service';
import type { PublishedEvent } from '../events/event-body';
import { EventFeed, FEED_IDS_AT_ONCE, eventCursorAt, eventIdTime } from '../events/event-feed';
import type { EventSubscriber } from '../events/event-relay';
import { JobRunner, type JobHandle } from '../jobs/job-runner';
import { PaymentsService } from '../payments/payments.service';
import { ProjectsService } from '../projects/projects.service';
import {
  changeOfEvent,
  changesIndex,
  customerDocument,
  paymentDocument,
  projectDocument,
  versionAt,
} from './index-documents';
import { SEARCH_INDEX, type IndexChange, type IndexDocument, type SearchIndex } from './search-index';

/** Events whose ids and types are read from the list at a time. */
const FEED_HEADS_BATCH = 2000;
/** Records written to the index in one transaction during a rebuild. */
const REBUILD_BATCH = 500;
const DAY_MS = 24 * 3600_000;
/**
 * Event ids the indexer remembers having applied, the newest this many. The feed reads the ids of
 * each event many times (the listing grace on every poll, the recheck window every
 * `recheckIntervalMs`), and an event applied once changes nothing when applied again: a remembered
 * one is not read whole, parsed or looked up again. One forgotten costs only that re-application.
 */
const REMEMBERED_EVENTS = 8192;

/** Where a rebuild reads the records: the ports of the modules that own them. */
export interface RecordSources {
  projects: Pick<ProjectsService, 'everyProject'>;
  customers: Pick<CustomersService, 'everyCustomer'>;
  payments: Pick<PaymentsService, 'everyPayment'>;
}

/**
 * Rebuilds `index` from the records: empties it, writes every record's row (versioned by its
 * `updatedAt`), and sets the cursor to a little before the rebuild began, so the feed reads again
 * every change made while it ran (a delete among them): those are applied by version, in any order.
 * Answers how many records it wrote.
 */
export async function rebuildIndex(
  index: SearchIndex,
  sources: RecordSources,
  recheckWindowMs: number,
): Promise<number> {
  const started = new Date();
  index.clear();
  let written = 0;
  let batch: IndexChange[] = [];
  const flush = () => {
    index.apply(batch);
    written += batch.length;
    batch = [];
  };
  const add = (document: IndexDocument) => {
    batch.push({ put: document });
    if (batch.length >= REBUILD_BATCH) flush();
  };
  for await (const { tenant, object } of sources.projects.everyProject())
    add(projectDocument(tenant, object, versionAt(object.updatedAt)));
  for await (const { tenant, object } of sources.customers.everyCustomer())
    add(customerDocument(tenant, object, versionAt(object.updatedAt)));
  for await (const { tenant, object } of sources.payments.everyPayment())
    add(paymentDocument(tenant, object, versionAt(object.updatedAt)));
  flush();
  index.markBuilt(eventCursorAt(new Date(started.getTime() - recheckWindowMs)));
  return written;
}

/**
 * Keeps this instance's index in step with the events list, the change stream webhooks read: this
 * instance's events as it publishes them (the relay's subscribers, as the webhook dispatcher is), and
 * every instance's by reading the list from a cursor kept in the index file, every second. Each
 * change is applied by version, so one read twice or late changes nothing. On start, an index that
 * was never built, or whose cursor is older than the events' retention (the events it missed are
 * gone), is rebuilt from the records.
 */
@Injectable()
export class SearchIndexer implements EventSubscriber, OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger(SearchIndexer.name);
  private job?: JobHandle;
  private lastRecheck = Date.now();
  private closing = false;
  /** Ids of events applied (or handed to `applySoon`) lately, oldest first: see REMEMBERED_EVENTS. */
  private readonly applied = new Set<string>();

  constructor(
    @Inject(SEARCH_INDEX) private readonly index: SearchIndex,
    private readonly feed: EventFeed,
    private readonly projects: ProjectsService,
    private readonly customers: CustomersService,
    private readonly payments: PaymentsService,
    @Inject(searchConfig.KEY) private readonly config: ConfigType<typeof searchConfig>,
    private readonly jobs: JobRunner,
  ) {}

  /** Every instance follows the events into its own index file: the job takes no lease. */
  onApplicationBootstrap(): void {
    this.feed.follow(this);
    this.job = this.jobs.register({
      name: 'search.feed',
      everyMs: this.config.pollIntervalMs,
      firstAfterMs: 0,
      run: () => this.step(),
    });
  }

  /** The feed stops before the database connection closes. */
  async onModuleDestroy(): Promise<void> {
    this.closing = true;
    await this.job?.stop();
  }

  /** The file closes once no request can read it any more. */
  onApplicationShutdown(): void {
    this.index.close();
  }

  /**
   * This instance's events, as it publishes them: applied with the others published within a quarter
   * second, in one transaction, and before any read of the index (the list is read later too).
   * Never throws: the relay would count the publish as failed.
   */
  eventsRecorded(events: readonly PublishedEvent[]): Promise<void> {
    try {
      if (!this.closing) {
        const changes = this.changesOf(events);
        this.index.applySoon(changes, this.notIndexed);
      }
    } catch (error) {
      this.notIndexed(error as Error, events.length);
    }
    return Promise.resolve();
  }

  private readonly notIndexed = (error: Error, changes: number): void => {
    // Which of the remembered events were among them is not known: the feed applies them all again.
    this.applied.clear();
    this.logger.warn(`Indexing ${changes} changes failed, left to the feed: ${error.message}`);
  };

  /** The changes of the events not applied lately, those events remembered as applied. */
  private changesOf(events: readonly PublishedEvent[]): IndexChange[] {
    const changes: IndexChange[] = [];
    for (const event of events) {
      if (!changesIndex(event.type) || this.applied.has(event.id)) continue;
      const change = changeOfEvent(event);
      this.applied.add(event.id);
      if (change) changes.push(change);
    }
    for (const id of this.applied) {
      if (this.applied.size <= REMEMBERED_EVENTS) break;
      this.applied.delete(id);
    }
    return changes;
  }

  /** Applies the events' changes now; a failure forgets them all, so the next read applies them again. */
  private applyNow(events: readonly PublishedEvent[]): void {
    try {
      this.index.apply(this.changesOf(events));
    } catch (error) {
      this.applied.clear();
      throw error;
    }
  }

  /** Empties the index and writes every record again. */
  rebuild(): Promise<number> {
    // The index is emptied: what was applied before is applied again from the records and the feed.
    this.applied.clear();
    return rebuildIndex(
      this.index,
      { projects: this.projects, customers: this.customers, payments: this.payments },
      this.config.recheckWindowMs,
    );
  }

  /** An index never built, or whose cursor is older than the events kept (it missed some), is rebuilt. */
  private needsRebuild(): boolean {
    const cursor = this.index.cursor();
    const at = cursor ? eventIdTime(cursor) : null;
    return !this.index.built() || !at || at.getTime() < Date.now() - this.config.retentionDays * DAY_MS;
  }

  private async step(): Promise<void> {
    if (this.needsRebuild()) {
      const written = await this.rebuild();
      this.logger.log(`Search index rebuilt from the records: ${written} records`);
    }
    await this.follow();
  }

  /**
   * Reads the events after the cursor to the end of the list, and moves the cursor up to what was
   * read but never past `listingGraceMs` ago (events of writes still under way elsewhere are listed
   * later, with lower ids); every `recheckIntervalMs`, reads again the `recheckWindowMs` before it,
   * for events listed later still (by the events sweep).
   */
  private async follow(): Promise<void> {
    const stored = this.index.cursor();
    if (Date.now() - this.lastRecheck >= this.config.recheckIntervalMs && stored) {
      this.lastRecheck = Date.now();
      const from = eventCursorAt(new Date((eventIdTime(stored) ?? new Date()).getTime() - this.config.recheckWindowMs));
      await this.read(from, stored);
    }
    const read = await this.read(stored, null);
    if (this.closing) return;
    const now = Date.now();
    const horizon = eventCursorAt(new Date(now - this.config.listingGraceMs));
    // Read to the end: an idle list moves the cursor on too, to the recheck window's start at least
    // (else a quiet month would look like missed events at the next start).
    const floor = eventCursorAt(new Date(now - this.config.recheckWindowMs));
    const next = [stored ?? floor, floor, read && read < horizon ? read : horizon].reduce((a, b) => (b > a ? b : a));
    if (next !== stored) this.index.setCursor(next);
  }

  /**
   * Applies the listed events with ids above `after` (all when null) and up to `until` (to the end
   * when null), moving no cursor; answers the last id read, or `after`. Their ids and types are read
   * first, then the bodies of the events the index holds that were not applied lately: the listing
   * grace and the recheck window are read again and again, and an event read whole once is not.
   */
  private async read(after: string | null, until: string | null): Promise<string | null> {
    let last = after;
    while (!this.closing) {
      const heads = await this.feed.headsAfter(last, FEED_HEADS_BATCH);
      const inRange = until === null ? heads : heads.filter((head) => head.id <= until);
      const wanted = inRange.filter((head) => changesIndex(head.type) && !this.applied.has(head.id));
      for (let at = 0; at < wanted.length && !this.closing; at += FEED_IDS_AT_ONCE) {
        const ids = wanted.slice(at, at + FEED_IDS_AT_ONCE).map((head) => head.id);
        this.applyNow(await this.feed.withIds(ids));
      }
      if (inRange.length > 0) last = inRange[inRange.length - 1].id;
      if (heads.length < FEED_HEADS_BATCH || inRange.length < heads.length) break;
    }
    return last;
  }
}
