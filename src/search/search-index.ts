import type { ParsedQuery } from './stripe-query';

/** What the index holds: content projects, customers and payments. */
export type IndexedKind = 'project' | 'customer' | 'payment';

/**
 * One record as the index keeps it, built from the object its events carry (what its GET returns).
 * `tenant` is the platform project; `version` orders the changes of one record (a later version
 * replaces, an earlier one is ignored), so events may come twice and out of order.
 */
export interface IndexDocument {
  kind: IndexedKind;
  tenant: string;
  id: string;
  version: string;
  /** Searched words: the title (weighted most), the tags, the body. */
  title: string;
  tags: string;
  body: string;
  /** Unix seconds. */
  created: number;
  /** Filters beside the words; what a kind does not have is null. */
  fields: {
    status?: string | null;
    access?: string | null;
    channelId?: string | null;
    parentId?: string | null;
    type?: string | null;
    email?: string | null;
    name?: string | null;
    phone?: string | null;
    /** Minor units. */
    amount?: number | null;
    currency?: string | null;
    customer?: string | null;
    metadata?: Record<string, string>;
  };
}

/** A record that is gone: it leaves the index, and no earlier version of it comes back. */
export interface IndexRemoval {
  kind: IndexedKind;
  tenant: string;
  id: string;
  version: string;
}

export type IndexChange = { put: IndexDocument } | { remove: IndexRemoval };

export interface ProjectSearch {
  /** Free text: words, each also a prefix, and within one edit for words of 5 letters or more. */
  text?: string;
  status?: string;
  access?: string;
  channelId?: string;
  parentId?: string;
  type?: string;
  createdAfter?: number;
  createdBefore?: number;
  sort: 'relevance' | 'newest' | 'oldest';
  offset: number;
  /** Null: every match (the viewer route decides which of them to show). */
  limit: number | null;
}

export interface RecordSearch {
  kind: 'customer' | 'payment';
  query: ParsedQuery;
  offset: number;
  limit: number;
}

/** Ids in result order, and how many match in all. */
export interface SearchHits {
  ids: string[];
  total: number;
}

/**
 * The search engine behind one port, so a search server can replace the embedded one at scale.
 * Every read takes the tenant (the platform project) first, and the engine makes it part of the
 * query it runs: nothing of another tenant is read, so nothing has to be filtered out after.
 */
export interface SearchIndex {
  /** Applies changes idempotently, keeping per record the highest version seen. */
  apply(changes: readonly IndexChange[]): void;
  /**
   * Applies changes with the others given within `APPLY_SOON_MS`, in one transaction, at the latest
   * before the index is next read or written (so a read sees them); a failure is handed to `failed`.
   */
  applySoon(changes: readonly IndexChange[], failed: (error: Error, changes: number) => void): void;
  searchProjects(tenant: string, search: ProjectSearch): SearchHits;
  searchRecords(tenant: string, search: RecordSearch): SearchHits;
  /** The id of the last listed event applied (the feed's cursor), null before any. */
  cursor(): string | null;
  setCursor(cursor: string): void;
  /** Whether the index was ever built whole from the records. */
  built(): boolean;
  /** Empties the index, before a rebuild from the records. */
  clear(): void;
  markBuilt(cursor: string): void;
  close(): void;
}

export const SEARCH_INDEX = Symbol('SearchIndex');
