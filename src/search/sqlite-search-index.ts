import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import type {
  IndexChange,
  IndexDocument,
  IndexRemoval,
  ProjectSearch,
  RecordSearch,
  SearchHits,
  SearchIndex,
} from './search-index';
import type { QueryClause } from './stripe-query';

/** Words of a query read at most; more narrow nothing a reader would notice. */
const MAX_WORDS = 10;
/** Words this long or longer are also matched within one typo. */
export const TYPO_MIN_LENGTH = 5;
/** Spellings one edit away taken per word at most, the most frequent first. */
const MAX_VARIANTS = 20;
/**
 * How long changes given to `applySoon` wait for others. A transaction's commit costs far more than
 * its rows (a write to the log, a checkpoint now and then): applied one publish at a time, the index
 * cost each write request more than the rest of its indexing together. Nothing reads past the wait
 * (a read applies what waits first), and a change lost with the process is read again from the
 * events list by the feed, so the wait may hold a busy instance's publishes of a quarter second.
 */
export const APPLY_SOON_MS = 250;

/**
 * The embedded search index: SQLite FTS5 in Node's built-in `node:sqlite`, one file per instance.
 * `docs` holds one row per record (its tenant, version and the structured fields filters use);
 * `docs_text` the words, under the same rowid, with the tenant in every row; `docs_terms` the
 * vocabulary (an `fts5vocab` table) the typo lookup reads; `meta` the feed's cursor. A record that is
 * gone stays as a row marked `gone`, with the version that removed it, so an older change of it
 * arriving later cannot bring it back. Every query names the tenant in its SQL.
 */
export class SqliteSearchIndex implements SearchIndex {
  private readonly db: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();
  /** Changes given to `applySoon` and not applied yet, in the order given, and who hears of a failure. */
  private pending: IndexChange[] = [];
  private pendingFailed: ((error: Error, changes: number) => void) | undefined;
  private pendingTimer: NodeJS.Timeout | undefined;

  constructor(file: string) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new DatabaseSync(file);
    this.db.exec(`
      PRAGMA journal_mode = WAL;
      PRAGMA busy_timeout = 5000;
      PRAGMA synchronous = NORMAL;
      CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS docs (
        rowid INTEGER PRIMARY KEY,
        tenant TEXT NOT NULL,
        kind TEXT NOT NULL,
        id TEXT NOT NULL,
        version TEXT NOT NULL,
        gone INTEGER NOT NULL DEFAULT 0,
        created INTEGER NOT NULL DEFAULT 0,
        status TEXT, access TEXT, channel_id TEXT, parent_id TEXT, type TEXT,
        email TEXT, name TEXT, phone TEXT, amount REAL, currency TEXT, customer TEXT,
        metadata TEXT NOT NULL DEFAULT '{}',
        UNIQUE (tenant, kind, id)
      );
      CREATE INDEX IF NOT EXISTS docs_by_created ON docs (tenant, kind, gone, created);
      CREATE VIRTUAL TABLE IF NOT EXISTS docs_text USING fts5(
        tenant UNINDEXED, title, tags, body,
        tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
      );
      CREATE VIRTUAL TABLE IF NOT EXISTS docs_terms USING fts5vocab(docs_text, 'row');
    `);
  }

  apply(changes: readonly IndexChange[]): void {
    this.applyPending();
    this.applyNow(changes);
  }

  applySoon(changes: readonly IndexChange[], failed: (error: Error, changes: number) => void): void {
    if (changes.length === 0) return;
    this.pending.push(...changes);
    this.pendingFailed = failed;
    if (!this.pendingTimer) {
      this.pendingTimer = setTimeout(() => this.applyPending(), APPLY_SOON_MS);
      this.pendingTimer.unref();
    }
  }

  /** What `applySoon` holds, applied now: every other method starts here, so none reads past it. */
  private applyPending(): void {
    if (this.pendingTimer) clearTimeout(this.pendingTimer);
    this.pendingTimer = undefined;
    if (this.pending.length === 0) return;
    const changes = this.pending;
    const failed = this.pendingFailed;
    this.pending = [];
    this.pendingFailed = undefined;
    try {
      this.applyNow(changes);
    } catch (error) {
      failed?.(error as Error, changes.length);
    }
  }

  private applyNow(changes: readonly IndexChange[]): void {
    if (changes.length === 0) return;
    this.transaction(() => {
      for (const change of changes) {
        if ('put' in change) this.put(change.put);
        else this.remove(change.remove);
      }
    });
  }

  searchProjects(tenant: string, search: ProjectSearch): SearchHits {
    this.applyPending();
    const where = ['d.tenant = ?', "d.kind = 'project'", 'd.gone = 0'];
    const params: SQLInputValue[] = [tenant];
    const filter = (column: string, value: string | undefined) => {
      if (value === undefined) return;
      where.push(`d.${column} = ?`);
      params.push(value);
    };
    filter('status', search.status);
    filter('access', search.access);
    filter('channel_id', search.channelId);
    filter('parent_id', search.parentId);
    filter('type', search.type);
    if (search.createdAfter !== undefined) {
      where.push('d.created >= ?');
      params.push(search.createdAfter);
    }
    if (search.createdBefore !== undefined) {
      where.push('d.created <= ?');
      params.push(search.createdBefore);
    }
    const match = search.text ? this.matchExpression(search.text) : null;
    if (search.text && match === null) return { ids: [], total: 0 };
    let from = 'docs d';
    let rank = 'NULL';
    if (match) {
      // The tenant is part of the text query too: the FTS row's own column, beside the join's.
      from = 'docs_text t JOIN docs d ON d.rowid = t.rowid';
      where.unshift('docs_text MATCH ?', 't.tenant = ?');
      params.unshift(match, tenant);
      rank = 'bm25(docs_text, 0, 10.0, 4.0, 1.0)';
    }
    const order =
      search.sort === 'oldest'
        ? 'd.created ASC, d.id ASC'
        : search.sort === 'relevance' && match
          ? 'rank ASC, d.created DESC, d.id DESC'
          : 'd.created DESC, d.id DESC';
    const conditions = where.join(' AND ');
    const total = Number(
      (this.statement(`SELECT count(*) AS n FROM ${from} WHERE ${conditions}`).get(...params) as { n: number }).n,
    );
    const page = search.limit === null ? '' : ' LIMIT ? OFFSET ?';
    const pageParams = search.limit === null ? [] : [search.limit, search.offset];
    const rows = this.statement(
      `SELECT d.id AS id, ${rank} AS rank FROM ${from} WHERE ${conditions} ORDER BY ${order}${page}`,
    ).all(...params, ...pageParams) as Array<{ id: string }>;
    return { ids: rows.map((row) => row.id), total };
  }

  searchRecords(tenant: string, search: RecordSearch): SearchHits {
    this.applyPending();
    const params: SQLInputValue[] = [tenant, search.kind];
    const clauses = search.query.clauses.map((clause) => {
      const { sql, values } = clauseSql(clause);
      params.push(...values);
      return clause.negated ? `NOT (${sql})` : `(${sql})`;
    });
    const conditions = `d.tenant = ? AND d.kind = ? AND d.gone = 0 AND (${clauses.join(` ${search.query.connector} `)})`;
    const total = Number(
      (this.statement(`SELECT count(*) AS n FROM docs d WHERE ${conditions}`).get(...params) as { n: number }).n,
    );
    const rows = this.statement(
      `SELECT d.id AS id FROM docs d WHERE ${conditions} ORDER BY d.created DESC, d.id DESC LIMIT ? OFFSET ?`,
    ).all(...params, search.limit, search.offset) as Array<{ id: string }>;
    return { ids: rows.map((row) => row.id), total };
  }

  cursor(): string | null {
    this.applyPending();
    return this.meta('cursor');
  }

  setCursor(cursor: string): void {
    this.applyPending();
    this.statement(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    ).run('cursor', cursor);
  }

  built(): boolean {
    this.applyPending();
    return this.meta('built') !== null;
  }

  clear(): void {
    this.applyPending();
    this.transaction(() => {
      this.db.exec("DELETE FROM docs; DELETE FROM docs_text; DELETE FROM meta WHERE key IN ('built', 'cursor');");
    });
  }

  markBuilt(cursor: string): void {
    this.applyPending();
    this.transaction(() => {
      this.setCursor(cursor);
      this.statement(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      ).run('built', new Date().toISOString());
    });
  }

  close(): void {
    if (this.db.isOpen) this.applyPending();
    if (this.db.isOpen) this.db.close();
  }

  private put(doc: IndexDocument): void {
    const current = this.current(doc);
    if (current && current.version >= doc.version) return;
    const f = doc.fields;
    const values: SQLInputValue[] = [
      doc.version,
      doc.created,
      f.status ?? null,
      f.access ?? null,
      f.channelId ?? null,
      f.parentId ?? null,
      f.type ?? null,
      f.email ?? null,
      f.name ?? null,
      f.phone ?? null,
      f.amount ?? null,
      f.currency ?? null,
      f.customer ?? null,
      JSON.stringify(f.metadata ?? {}),
    ];
    let rowid: number | bigint;
    if (current) {
      rowid = current.rowid;
      this.statement(
        `UPDATE docs SET version = ?, gone = 0, created = ?, status = ?, access = ?, channel_id = ?, parent_id = ?, type = ?,
         email = ?, name = ?, phone = ?, amount = ?, currency = ?, customer = ?, metadata = ? WHERE rowid = ?`,
      ).run(...values, rowid);
      this.statement('DELETE FROM docs_text WHERE rowid = ?').run(rowid);
    } else {
      rowid = this.statement(
        `INSERT INTO docs (tenant, kind, id, version, created, status, access, channel_id, parent_id, type, email, name, phone, amount, currency, customer, metadata)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(doc.tenant, doc.kind, doc.id, ...values).lastInsertRowid;
    }
    this.statement('INSERT INTO docs_text (rowid, tenant, title, tags, body) VALUES (?, ?, ?, ?, ?)').run(
      rowid,
      doc.tenant,
      doc.title,
      doc.tags,
      doc.body,
    );
  }

  private remove(removal: IndexRemoval): void {
    const current = this.current(removal);
    if (current && current.version >= removal.version) return;
    if (current) {
      this.statement('UPDATE docs SET version = ?, gone = 1 WHERE rowid = ?').run(removal.version, current.rowid);
      this.statement('DELETE FROM docs_text WHERE rowid = ?').run(current.rowid);
    } else {
      this.statement('INSERT INTO docs (tenant, kind, id, version, gone) VALUES (?, ?, ?, ?, 1)').run(
        removal.tenant,
        removal.kind,
        removal.id,
        removal.version,
      );
    }
  }

  private current(key: { tenant: string; kind: string; id: string }): { rowid: number; version: string } | undefined {
    return this.statement('SELECT rowid, version FROM docs WHERE tenant = ? AND kind = ? AND id = ?').get(
      key.tenant,
      key.kind,
      key.id,
    ) as { rowid: number; version: string } | undefined;
  }

  /**
   * The FTS5 query of a text: every word must match, as itself or as a prefix, or, for a word of
   * TYPO_MIN_LENGTH letters or more, as a term of the vocabulary one edit away. Null: no word.
   */
  private matchExpression(text: string): string | null {
    const words = searchWords(text).slice(0, MAX_WORDS);
    if (words.length === 0) return null;
    return words
      .map((word) => {
        const alternatives = [`"${word}"*`, ...this.variantsOf(word).map((variant) => `"${variant}"`)];
        return alternatives.length === 1 ? alternatives[0] : `(${alternatives.join(' OR ')})`;
      })
      .join(' AND ');
  }

  private variantsOf(word: string): string[] {
    const length = [...word].length;
    if (length < TYPO_MIN_LENGTH) return [];
    const terms = this.statement(
      'SELECT term, doc FROM docs_terms WHERE length(term) BETWEEN ? AND ? ORDER BY doc DESC',
    ).all(length - 1, length + 1) as Array<{
      term: string;
    }>;
    return terms
      .map((row) => row.term)
      .filter((term) => !term.startsWith(word) && withinOneEdit(word, term))
      .slice(0, MAX_VARIANTS);
  }

  private meta(key: string): string | null {
    return (
      (this.statement('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value ?? null
    );
  }

  private statement(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private transaction(work: () => void): void {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      work();
      this.db.exec('COMMIT');
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
  }
}

/** The words of a text as the index's tokenizer sees them: lower case, accents off, letters and digits. */
export function searchWords(text: string): string[] {
  return (
    text
      .toLowerCase()
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** Whether `b` is `a` with one letter changed, added, removed, or two neighbours swapped (or `a` itself). */
export function withinOneEdit(a: string, b: string): boolean {
  const x = [...a];
  const y = [...b];
  if (Math.abs(x.length - y.length) > 1) return false;
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  if (x.length === y.length) {
    if (i === x.length) return true;
    const rest = (from: number) => x.slice(from).join('') === y.slice(from).join('');
    return rest(i + 1) || (x[i] === y[i + 1] && x[i + 1] === y[i] && rest(i + 2));
  }
  const [short, long] = x.length < y.length ? [x, y] : [y, x];
  return short.slice(i).join('') === long.slice(i + 1).join('');
}

const COLUMNS: Record<string, string> = {
  email: 'email',
  name: 'name',
  phone: 'phone',
  created: 'created',
  amount: 'amount',
  currency: 'currency',
  customer: 'customer',
  status: 'status',
};

const COMPARISONS = { ':': '=', '>': '>', '<': '<', '>=': '>=', '<=': '<=' } as const;

/** One clause of a parsed query as SQL over `docs d`; values are bound, never spliced. */
function clauseSql(clause: QueryClause): { sql: string; values: SQLInputValue[] } {
  if (clause.field === 'metadata') {
    return {
      sql: 'EXISTS (SELECT 1 FROM json_each(d.metadata) m WHERE m.key = ? AND m.value = ?)',
      values: [clause.key ?? '', String(clause.value)],
    };
  }
  const column = COLUMNS[clause.field];
  if (!column) throw new Error(`No column for the search field ${clause.field}`);
  if (typeof clause.value === 'number') {
    const comparison = COMPARISONS[clause.operator as keyof typeof COMPARISONS];
    return { sql: `d.${column} ${comparison} ?`, values: [clause.value] };
  }
  if (clause.operator === '~')
    return { sql: `instr(lower(coalesce(d.${column}, '')), lower(?)) > 0`, values: [clause.value] };
  return { sql: `lower(coalesce(d.${column}, '')) = lower(?)`, values: [clause.value] };
}
