import {
  ForbiddenException,
  Injectable,
  Logger,
  NotFoundException,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { AuditContext } from '../audit/audit-draft';
import { AuditTrail } from '../audit/audit-trail';
import type { Principal } from '../tenancy/principal';
import { NO_ACCOUNT } from '../access/policy/access-messages';
import { UsersService } from '../identity/users/users.service';
import { SEARCH_SURFACES, type SearchHistoryEntry, type SearchSurface } from './search-history-entry.schema';
import {
  SearchHistoryRepository,
  settingsIdOf,
  type HistoryOwner,
  type StoredSearch,
} from './search-history.repository';

/** Entries kept per user and account; the oldest goes when one more is recorded. */
export const HISTORY_MAX_ENTRIES = 100;
/** Days an entry is kept after it was last run. */
export const HISTORY_MAX_DAYS = 90;
const DAY_MS = 86_400_000;
export const QUERY_MAX_LENGTH = 500;
export const FILTERS_MAX = 20;
export const FILTER_VALUE_MAX_LENGTH = 200;
const FILTER_NAME = /^[A-Za-z][A-Za-z0-9_]{0,39}$/;
export const SEARCH_NOT_FOUND = 'Search not found';

/** What a search route reports of a search it answered. */
export interface SearchToRecord {
  surface: SearchSurface;
  query: string;
  filters: Record<string, string>;
}

/**
 * The search as stored: the query with its spacing collapsed and capped, the filters that have a
 * value, by name; and its key, the same for a repeat that differs only in case, spacing or the
 * order of the filters. Null when there is nothing to remember (no words, no filter).
 */
export function normalizeSearch(search: SearchToRecord): StoredSearch | null {
  if (!SEARCH_SURFACES.includes(search.surface)) throw new Error(`Unknown search surface: ${String(search.surface)}`);
  const query = String(search.query ?? '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, QUERY_MAX_LENGTH);
  const filters: Record<string, string> = {};
  for (const name of Object.keys(search.filters ?? {}).sort()) {
    const value = search.filters[name];
    if (!FILTER_NAME.test(name) || typeof value !== 'string' || value.trim() === '') continue;
    if (Object.keys(filters).length === FILTERS_MAX) break;
    filters[name] = value.trim().slice(0, FILTER_VALUE_MAX_LENGTH);
  }
  if (query === '' && Object.keys(filters).length === 0) return null;
  const identity = JSON.stringify([search.surface, query.toLowerCase(), Object.entries(filters)]);
  return { surface: search.surface, query, filters, key: createHash('sha256').update(identity).digest('hex') };
}

/** The owner of the history a `/api/v1/me/search-history` request reads: the user, in their token's account. */
export function historyOwnerOf(userId: string, caller: Principal): HistoryOwner {
  if (caller.kind !== 'user' || !caller.accountId) throw new ForbiddenException(NO_ACCOUNT);
  return { userId, accountId: caller.accountId };
}

/**
 * A user's searches in one account, kept for them alone. The port of the search routes is `record`,
 * called for a user (never an API key) once a search has answered; the `/api/v1/me/search-history`
 * routes read, remove, clear and pause.
 */
@Injectable()
export class SearchHistoryService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(SearchHistoryService.name);
  private stopExpiry: () => void = () => undefined;

  constructor(
    private readonly history: SearchHistoryRepository,
    private readonly trail: AuditTrail,
    private readonly users: UsersService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.stopExpiry = await this.history.expireByAge(HISTORY_MAX_DAYS * 86_400, this.logger);
  }

  onModuleDestroy(): void {
    this.stopExpiry();
  }

  /**
   * Puts the search at the top of the user's history in the account (a repeat moves there rather
   * than being listed twice) and drops what is past the newest 100. Nothing while the user has
   * paused it, and nothing for a search without words or filters.
   */
  async record(who: HistoryOwner, entry: SearchToRecord): Promise<void> {
    const search = normalizeSearch(entry);
    if (!search || (await this.history.isPaused(who))) return;
    await this.history.touch(who, search, new Date());
    await this.history.trim(who, HISTORY_MAX_ENTRIES);
  }

  async list(
    owner: HistoryOwner,
    options: { surface?: SearchSurface; limit?: number },
  ): Promise<{ entries: SearchHistoryEntry[]; paused: boolean }> {
    const since = new Date(Date.now() - HISTORY_MAX_DAYS * DAY_MS);
    const [entries, paused] = await Promise.all([
      this.history.list(owner, { surface: options.surface, since, limit: options.limit ?? HISTORY_MAX_ENTRIES }),
      this.history.isPaused(owner),
    ]);
    return { entries, paused };
  }

  async remove(owner: HistoryOwner, id: string): Promise<void> {
    if (!(await this.history.remove(owner, id))) throw new NotFoundException(SEARCH_NOT_FOUND);
  }

  clear(owner: HistoryOwner): Promise<number> {
    return this.history.clear(owner);
  }

  /**
   * Pauses or resumes recording. A change is in the account's audit log (`search_history.paused` or
   * `search_history.resumed`), the searches themselves never are; setting what is already set
   * changes nothing and logs nothing.
   */
  async setPaused(audit: AuditContext, owner: HistoryOwner, paused: boolean): Promise<boolean> {
    if ((await this.history.isPaused(owner)) === paused) return paused;
    const email = await this.users.emailOf(owner.userId);
    const actor = { ...audit.actor, label: email };
    await this.trail.record(
      { ...audit, actor },
      {
        accountId: owner.accountId,
        action: paused ? 'search_history.paused' : 'search_history.resumed',
        target: { type: 'user', id: owner.userId, label: email },
        changes: { paused: [!paused, paused] },
      },
      { collection: 'search_history_settings', id: settingsIdOf(owner), fields: { paused } },
      () => this.history.setPaused(owner, paused),
    );
    return paused;
  }

  /** A deleted user's history goes with them, in every account. */
  removeUser(userId: string): Promise<void> {
    return this.history.removeUser(userId);
  }
}
