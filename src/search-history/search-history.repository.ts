import { Injectable, Logger } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';
import { isDuplicateKey } from '../common/database/duplicate-key';
import { Records, toObjectId } from '../database/records';
import { SearchHistoryEntry, type SearchSurface } from './search-history-entry.schema';
import { SearchHistorySettings } from './search-history-settings.schema';

/** Whose history: a user in one account. Both ids come from the caller's principal, never from a request's body. */
export interface HistoryOwner {
  readonly userId: string;
  readonly accountId: string;
}

export interface StoredSearch {
  surface: SearchSurface;
  query: string;
  filters: Record<string, string>;
  key: string;
}

/** A user's search history and its settings: the only code that touches them. */
@Injectable()
export class SearchHistoryRepository {
  private readonly entries: Records<SearchHistoryEntry>;
  private readonly settings: Records<SearchHistorySettings>;

  constructor(
    @InjectModel(SearchHistoryEntry.name) entries: Model<SearchHistoryEntry>,
    @InjectModel(SearchHistorySettings.name) settings: Model<SearchHistorySettings>,
  ) {
    this.entries = new Records(entries);
    this.settings = new Records(settings);
  }

  async isPaused(owner: HistoryOwner): Promise<boolean> {
    const settings = await this.settings.findOne<SearchHistorySettings>(
      { _id: settingsIdOf(owner) },
      { fields: ['paused'] },
    );
    return settings?.paused === true;
  }

  /** Sets the owner's pause, creating their settings record the first time. */
  async setPaused(owner: HistoryOwner, paused: boolean): Promise<void> {
    const _id = settingsIdOf(owner);
    const inserted = await this.settings.insertUnlessExists({ _id }, { ...ownerIds(owner), paused });
    if (!inserted) await this.settings.updateOne({ _id }, { $set: { paused } });
  }

  /**
   * The search at the top of the owner's history: its entry (one per key, by the unique index) moved
   * to `at`, or a new one. Two first runs at once both miss the update; the second insert then
   * collides and becomes the update.
   */
  async touch(owner: HistoryOwner, search: StoredSearch, at: Date): Promise<void> {
    const ids = ownerIds(owner);
    const filter = { ...ids, key: search.key };
    const set = { $set: { query: search.query, filters: search.filters, createdAt: at } };
    if ((await this.entries.updateOne(filter, set)).matched > 0) return;
    try {
      await this.entries.insert({ ...ids, ...search, createdAt: at });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      await this.entries.updateOne(filter, set);
    }
  }

  /**
   * Removes the owner's entries past the `keep` newest. Each one is removed only while it is still
   * as old as it was when read (`createdAt` at most the newest of the extras'): a search run again
   * meanwhile has moved to the top and stays. Every recording trims after its own write, so once
   * concurrent recordings are done, the last trim to read has seen them all and left `keep` at most.
   */
  async trim(owner: HistoryOwner, keep: number): Promise<number> {
    const ids = ownerIds(owner);
    const all = await this.entries.find(ids, { sort: { createdAt: -1, _id: -1 }, fields: ['createdAt'] });
    const extras = all.slice(keep);
    if (extras.length === 0) return 0;
    return this.entries.deleteMany({
      ...ids,
      _id: { $in: extras.map((entry) => entry._id) },
      createdAt: { $lte: extras[0].createdAt },
    });
  }

  /** Newest first, none older than `since` (the expiry may not have removed them yet). */
  list(
    owner: HistoryOwner,
    options: { surface?: SearchSurface; since: Date; limit: number },
  ): Promise<SearchHistoryEntry[]> {
    const conditions: Record<string, unknown> = { ...ownerIds(owner), createdAt: { $gte: options.since } };
    if (options.surface) conditions.surface = options.surface;
    return this.entries.find(conditions, { sort: { createdAt: -1, _id: -1 }, limit: options.limit });
  }

  /** True when the owner had this entry. Another user's or account's id names no entry of theirs. */
  async remove(owner: HistoryOwner, id: string): Promise<boolean> {
    const _id = toObjectId(id);
    return _id ? this.entries.deleteOne({ _id, ...ownerIds(owner) }) : false;
  }

  clear(owner: HistoryOwner): Promise<number> {
    return this.entries.deleteMany(ownerIds(owner));
  }

  /** Everything of a user, in every account: their entries and settings. */
  async removeUser(userId: string): Promise<void> {
    const user = toObjectId(userId);
    if (!user) return;
    await this.entries.deleteMany({ userId: user });
    await this.settings.deleteMany({ userId: user });
  }

  expireByAge(seconds: number, logger: Logger): Promise<() => void> {
    return this.entries.expireByAge(seconds, logger);
  }
}

export function settingsIdOf(owner: HistoryOwner): string {
  return `${owner.userId}:${owner.accountId}`;
}

function ownerIds(owner: HistoryOwner): { userId: Types.ObjectId; accountId: Types.ObjectId } {
  return { userId: new Types.ObjectId(owner.userId), accountId: new Types.ObjectId(owner.accountId) };
}
