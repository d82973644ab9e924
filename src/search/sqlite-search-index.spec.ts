import { changeOfEvent, projectDocument, versionAt } from './index-documents';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { APPLY_SOON_MS, SqliteSearchIndex, withinOneEdit } from './sqlite-search-index';
import type { ProjectResponse } from '../projects/dto/project.response';
import type { ProjectSearch } from './search-index';
import { parseStripeQuery } from './stripe-query';

const A = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const B = 'bbbbbbbbbbbbbbbbbbbbbbbb';

function project(id: string, fields: Partial<ProjectResponse> = {}): ProjectResponse {
  return {
    _id: id,
    channelId: 'c1',
    parentId: null,
    projectTypeId: 'show',
    subTypeId: null,
    primaryTitle: 'Untitled',
    description: null,
    portraitImg: null,
    landscapeImg: null,
    contentUploadType: null,
    access: 'public',
    status: 'draft',
    primaryLanguageId: null,
    categoryId: null,
    subCategoryId: null,
    topicIds: [],
    supportedFormats: [],
    supportedModes: [],
    supportedFeatures: [],
    createdAt: '2026-11-01T00:00:00.000Z',
    updatedAt: '2026-11-01T00:00:00.000Z',
    ...fields,
  } as ProjectResponse;
}

const search = (fields: Partial<ProjectSearch> = {}): ProjectSearch => ({
  sort: 'relevance',
  offset: 0,
  limit: 10,
  ...fields,
});

describe('the SQLite search index', () => {
  let index: SqliteSearchIndex;
  beforeEach(() => (index = new SqliteSearchIndex(':memory:')));
  afterEach(() => index.close());

  describe("changes applied soon (this instance's published events)", () => {
    const doc = (id: string, title: string) => ({
      put: projectDocument(A, project(id, { primaryTitle: title }), versionAt('2026-11-01T00:00:00.000Z', `evt_${id}`)),
    });
    const failures: string[] = [];
    const failed = (error: Error, changes: number) => failures.push(`${changes}: ${error.message}`);
    beforeEach(() => (failures.length = 0));

    it('are seen by the next read, even before their moment comes', () => {
      index.applySoon([doc('p1', 'Ocean documentary')], failed);
      index.applySoon([doc('p2', 'Ocean drama')], failed);
      expect(index.searchProjects(A, search({ text: 'ocean', sort: 'newest' })).total).toBe(2);
      expect(failures).toEqual([]);
    });

    it('are written together, without a read, once their moment comes', async () => {
      const folder = mkdtempSync(join(tmpdir(), 'search-index-'));
      const file = join(folder, 'index.db');
      const onDisk = new SqliteSearchIndex(file);
      const reader = new DatabaseSync(file);
      try {
        onDisk.applySoon([doc('p1', 'Ocean documentary')], failed);
        onDisk.applySoon([doc('p2', 'Ocean drama')], failed);
        expect(reader.prepare('SELECT count(*) AS n FROM docs').get()).toEqual({ n: 0 });
        await new Promise((resolve) => setTimeout(resolve, APPLY_SOON_MS * 2));
        expect(reader.prepare('SELECT count(*) AS n FROM docs').get()).toEqual({ n: 2 });
        expect(failures).toEqual([]);
      } finally {
        reader.close();
        onDisk.close();
        rmSync(folder, { recursive: true, force: true });
      }
    });

    it('are applied before a later change given at once, so the order holds', () => {
      const older = projectDocument(
        A,
        project('p1', { primaryTitle: 'Ocean' }),
        versionAt('2026-11-01T00:00:00.000Z', 'evt_1'),
      );
      const newer = projectDocument(
        A,
        project('p1', { primaryTitle: 'Desert' }),
        versionAt('2026-11-02T00:00:00.000Z', 'evt_2'),
      );
      index.applySoon([{ put: older }], failed);
      index.apply([{ put: newer }]);
      expect(index.searchProjects(A, search({ text: 'desert' })).ids).toEqual(['p1']);
      expect(index.searchProjects(A, search({ text: 'ocean' })).ids).toEqual([]);
    });

    it('hand a failure to the caller and leave the index usable', () => {
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      const broken = doc('p1', 'Ocean documentary');
      broken.put.fields.metadata = circular as never;
      index.applySoon([broken], failed);
      expect(index.searchProjects(A, search({ text: 'ocean' })).total).toBe(0);
      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatch(/^1: /);
      index.applySoon([doc('p2', 'Ocean drama')], failed);
      expect(index.searchProjects(A, search({ text: 'ocean' })).ids).toEqual(['p2']);
    });
  });

  const put = (tenant: string, value: ProjectResponse, version = versionAt(value.updatedAt, 'evt_1')) =>
    index.apply([{ put: projectDocument(tenant, value, version) }]);

  it('finds words, prefixes and one typo in words of five letters or more, in the title, the description and the tags', () => {
    put(
      A,
      project('p1', {
        primaryTitle: 'Ocean documentary',
        description: 'Whales of the Pacific',
        topicIds: ['wildlife'],
      }),
    );
    put(A, project('p2', { primaryTitle: 'Mountain climbing' }));
    expect(index.searchProjects(A, search({ text: 'ocean' })).ids).toEqual(['p1']);
    expect(index.searchProjects(A, search({ text: 'docu' })).ids).toEqual(['p1']);
    expect(index.searchProjects(A, search({ text: 'whales pacific' })).ids).toEqual(['p1']);
    expect(index.searchProjects(A, search({ text: 'wildlife' })).ids).toEqual(['p1']);
    expect(index.searchProjects(A, search({ text: 'documentray' })).ids).toEqual(['p1']);
    expect(index.searchProjects(A, search({ text: 'montain' })).ids).toEqual(['p2']);
    // Four letters: no typo allowed.
    expect(index.searchProjects(A, search({ text: 'ocan' })).ids).toEqual([]);
    // Two typos: none.
    expect(index.searchProjects(A, search({ text: 'moumtian' })).ids).toEqual([]);
  });

  it("never reads another tenant's rows, in the results or the count", () => {
    put(A, project('p1', { primaryTitle: 'Ocean' }));
    put(B, project('p2', { primaryTitle: 'Ocean' }));
    expect(index.searchProjects(A, search({ text: 'ocean' }))).toEqual({ ids: ['p1'], total: 1 });
    expect(index.searchProjects(B, search())).toEqual({ ids: ['p2'], total: 1 });
    expect(index.searchProjects('c'.repeat(24), search({ text: 'ocean' }))).toEqual({ ids: [], total: 0 });
  });

  it('keeps the latest version of a record: an older change, or one after its delete, changes nothing', () => {
    put(A, project('p1', { primaryTitle: 'Second', updatedAt: '2026-11-02T00:00:00.000Z' }));
    put(A, project('p1', { primaryTitle: 'First', updatedAt: '2026-11-01T00:00:00.000Z' }));
    expect(index.searchProjects(A, search({ text: 'second' })).ids).toEqual(['p1']);
    expect(index.searchProjects(A, search({ text: 'first' })).ids).toEqual([]);
    index.apply([
      { remove: { kind: 'project', tenant: A, id: 'p1', version: versionAt('2026-11-03T00:00:00.000Z', 'evt_2') } },
    ]);
    put(A, project('p1', { primaryTitle: 'Second', updatedAt: '2026-11-02T00:00:00.000Z' }));
    expect(index.searchProjects(A, search())).toEqual({ ids: [], total: 0 });
  });

  it('narrows by each filter, and sorts by date', () => {
    put(A, project('p1', { status: 'published', createdAt: '2026-01-01T00:00:00.000Z' }));
    put(A, project('p2', { access: 'linkPrivate', createdAt: '2026-02-01T00:00:00.000Z' }));
    put(
      A,
      project('p3', { channelId: 'c2', parentId: 'p1', projectTypeId: 'album', createdAt: '2026-03-01T00:00:00.000Z' }),
    );
    expect(index.searchProjects(A, search({ status: 'published' })).ids).toEqual(['p1']);
    expect(index.searchProjects(A, search({ access: 'linkPrivate' })).ids).toEqual(['p2']);
    expect(index.searchProjects(A, search({ channelId: 'c2' })).ids).toEqual(['p3']);
    expect(index.searchProjects(A, search({ parentId: 'p1' })).ids).toEqual(['p3']);
    expect(index.searchProjects(A, search({ type: 'album' })).ids).toEqual(['p3']);
    const feb = Date.parse('2026-02-01T00:00:00.000Z') / 1000;
    expect(index.searchProjects(A, search({ createdAfter: feb })).ids).toEqual(['p3', 'p2']);
    expect(index.searchProjects(A, search({ createdBefore: feb, sort: 'oldest' })).ids).toEqual(['p1', 'p2']);
    expect(index.searchProjects(A, search({ limit: 1, offset: 1 }))).toEqual({ ids: ['p2'], total: 3 });
  });

  it("answers Stripe's query language from the side table", () => {
    const event = (type: string, object: object, id: string) => ({
      id,
      type,
      projectId: A,
      createdAt: new Date('2026-11-01T00:00:00Z'),
      body: JSON.stringify({ data: { object } }),
    });
    const payment = (id: string, amount: number, currency: string, status: string) => ({
      id,
      amount,
      currency,
      customer: 'cus1',
      status,
      description: null,
      createdAt: '2026-11-01T00:00:00.000Z',
      updatedAt: '2026-11-01T00:00:00.000Z',
    });
    index.apply(
      [
        event('payment.created', payment('pay1', 25, 'USD', 'succeeded'), 'evt_a'),
        event('payment.created', payment('pay2', 5, 'USD', 'failed'), 'evt_b'),
        event('payment.created', payment('pay3', 30, 'EUR', 'succeeded'), 'evt_c'),
      ].map((published) => changeOfEvent(published)!),
    );
    const fields = {
      amount: 'number',
      currency: 'text',
      customer: 'text',
      status: 'text',
      created: 'number',
      metadata: 'metadata',
    } as const;
    const ids = (query: string) =>
      index
        .searchRecords(A, { kind: 'payment', query: parseStripeQuery(query, fields), offset: 0, limit: 10 })
        .ids.sort();
    expect(ids("amount>1000 AND currency:'usd'")).toEqual(['pay1']);
    expect(ids("status:'succeeded'")).toEqual(['pay1', 'pay3']);
    expect(ids("-status:'failed'")).toEqual(['pay1', 'pay3']);
    expect(ids("currency:'eur' OR amount<1000")).toEqual(['pay2', 'pay3']);
    expect(ids("metadata['order_id']:'6735'")).toEqual([]);
    expect(
      index.searchRecords(B, {
        kind: 'payment',
        query: parseStripeQuery("status:'succeeded'", fields),
        offset: 0,
        limit: 10,
      }),
    ).toEqual({ ids: [], total: 0 });
  });

  it('keeps its cursor and whether it was built', () => {
    expect(index.built()).toBe(false);
    expect(index.cursor()).toBeNull();
    index.markBuilt('evt_x');
    expect(index.built()).toBe(true);
    expect(index.cursor()).toBe('evt_x');
    index.clear();
    expect(index.built()).toBe(false);
  });

  it('counts one edit: a letter changed, added, removed, or two neighbours swapped', () => {
    expect(withinOneEdit('ocean', 'ocean')).toBe(true);
    expect(withinOneEdit('ocean', 'ocaen')).toBe(true);
    expect(withinOneEdit('ocean', 'oceans')).toBe(true);
    expect(withinOneEdit('ocean', 'ocan')).toBe(true);
    expect(withinOneEdit('ocean', 'ocein')).toBe(true);
    expect(withinOneEdit('ocean', 'oacen')).toBe(false);
    expect(withinOneEdit('ocean', 'ocea')).toBe(true);
    expect(withinOneEdit('ocean', 'xcean')).toBe(true);
    expect(withinOneEdit('ocean', 'xceax')).toBe(false);
  });
});
