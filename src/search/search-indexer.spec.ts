import type { ConfigType } from '@nestjs/config';
import { Types } from 'mongoose';
import type { searchConfig } from '../config/search.config';
import type { PublishedEvent } from '../events/event-body';
import type { EventFeed } from '../events/event-feed';
import { SearchIndexer } from './search-indexer';
import { SqliteSearchIndex } from './sqlite-search-index';

const TENANT = 'aaaaaaaaaaaaaaaaaaaaaaaa';

/** A project's created event, its id made at `at` (as a request makes it before its write). */
function created(title: string, at: Date): PublishedEvent {
  const id = `evt_${Types.ObjectId.createFromTime(Math.floor(at.getTime() / 1000)).toHexString()}`;
  const object = {
    _id: new Types.ObjectId().toHexString(),
    primaryTitle: title,
    topicIds: [],
    createdAt: at.toISOString(),
    updatedAt: at.toISOString(),
  };
  return { id, type: 'project.created', projectId: TENANT, createdAt: at, body: JSON.stringify({ data: { object } }) };
}

describe('the search feed', () => {
  const config = {
    file: ':memory:',
    retentionDays: 30,
    pollIntervalMs: 1000,
    listingGraceMs: 5000,
    recheckWindowMs: 300_000,
    recheckIntervalMs: 30_000,
  } as ConfigType<typeof searchConfig>;
  let index: SqliteSearchIndex;
  let listed: PublishedEvent[];
  let indexer: SearchIndexer;
  /** Reads of the list: heads (id and type) and whole events. */
  let reads: { heads: number; whole: string[] };
  const inIdOrder = (events: PublishedEvent[]) => [...events].sort((a, b) => (a.id < b.id ? -1 : 1));
  const feed = {
    headsAfter: (cursor: string | null, limit: number) => {
      reads.heads += 1;
      return Promise.resolve(
        inIdOrder(listed.filter((event) => !cursor || event.id > cursor))
          .slice(0, limit)
          .map(({ id, type }) => ({ id, type })),
      );
    },
    withIds: (ids: readonly string[]) => {
      reads.whole.push(...ids);
      return Promise.resolve(inIdOrder(listed.filter((event) => ids.includes(event.id))));
    },
    follow: () => undefined,
  } as unknown as EventFeed;
  const follow = () => (indexer as unknown as { follow(): Promise<void> }).follow();
  const found = (word: string) =>
    index.searchProjects(TENANT, { text: word, sort: 'relevance', offset: 0, limit: 10 }).total;

  beforeEach(() => {
    index = new SqliteSearchIndex(':memory:');
    index.markBuilt(
      `evt_${Types.ObjectId.createFromTime(Math.floor(Date.now() / 1000) - 60)
        .toHexString()
        .slice(0, 8)}${'0'.repeat(16)}`,
    );
    listed = [];
    reads = { heads: 0, whole: [] };
    indexer = new SearchIndexer(index, feed, {} as never, {} as never, {} as never, config, {} as never);
  });
  afterEach(() => index.close());

  it('applies an event listed after a newer one was read: the cursor stays behind the writes still under way', async () => {
    listed.push(created('Newer', new Date()));
    await follow();
    expect(found('newer')).toBe(1);
    // Its id was made two seconds before the one read, its listing came after: another instance's slower write.
    listed.push(created('Slower', new Date(Date.now() - 2000)));
    await follow();
    expect(found('slower')).toBe(1);
  });

  it('moves the cursor no further than the listing grace, and never back', async () => {
    const before = index.cursor()!;
    listed.push(created('Recent', new Date()));
    await follow();
    const after = index.cursor()!;
    expect(after > before).toBe(true);
    expect(after < listed[0].id).toBe(true);
    await follow();
    expect(index.cursor()! >= after).toBe(true);
  });

  /** The event, counting how often its body is read (each read is a parse of it). */
  function counted(event: PublishedEvent): { event: PublishedEvent; reads: () => number } {
    let reads = 0;
    const body = event.body;
    const watched = { ...event };
    Object.defineProperty(watched, 'body', {
      get: () => {
        reads += 1;
        return body;
      },
    });
    return { event: watched, reads: () => reads };
  }

  it("reads an event's body once, whether this instance published it or the feed read it again", async () => {
    const local = counted(created('Published', new Date()));
    await indexer.eventsRecorded([local.event]);
    // Ids in the same second would be equal here: each event of its own second.
    const other = counted(created('Elsewhere', new Date(Date.now() - 1000)));
    listed.push(local.event, other.event);
    await follow();
    await follow();
    expect(found('published')).toBe(1);
    expect(found('elsewhere')).toBe(1);
    expect(local.reads()).toBe(1);
    expect(other.reads()).toBe(1);
    // The list was read twice; whole, only the event this instance had not applied, once.
    expect(reads.heads).toBeGreaterThanOrEqual(2);
    expect(reads.whole).toEqual([other.event.id]);
  });

  it('never reads whole an event of what the index does not hold', async () => {
    const at = new Date();
    listed.push({ ...created('Unused', at), type: 'collection.created' });
    await follow();
    expect(reads.heads).toBe(1);
    expect(reads.whole).toEqual([]);
  });

  it('finds in the recheck window an event listed late, below the cursor, and reads whole only that one', async () => {
    const early = created('Early', new Date(Date.now() - 10_000));
    listed.push(early);
    await follow();
    expect(index.cursor()).toBe(early.id);
    // Listed late (by the events sweep): its id is below the cursor, which the main pass reads after.
    const late = created('Late', new Date(Date.now() - 20_000));
    listed.push(late);
    await follow();
    expect(found('late')).toBe(0);
    (indexer as unknown as { lastRecheck: number }).lastRecheck = 0;
    await follow();
    expect(found('late')).toBe(1);
    expect(reads.whole).toEqual([early.id, late.id]);
  });

  it('applies from the feed an event whose application at publish failed', async () => {
    jest
      .spyOn(index, 'applySoon')
      .mockImplementationOnce((changes, failed) => failed(new Error('disk I/O error'), changes.length));
    const event = created('Retried', new Date());
    await indexer.eventsRecorded([event]);
    expect(found('retried')).toBe(0);
    listed.push(event);
    await follow();
    expect(found('retried')).toBe(1);
  });

  it('applies again what the feed read when applying it failed', async () => {
    const event = created('Again', new Date());
    listed.push(event);
    jest.spyOn(index, 'apply').mockImplementationOnce(() => {
      throw new Error('disk I/O error');
    });
    await expect(follow()).rejects.toThrow('disk I/O error');
    await follow();
    expect(found('again')).toBe(1);
  });
});
