import type { SearchHistoryEntryView } from './dto/search-history.response';
import type { SearchHistoryEntry } from './search-history-entry.schema';

export function toSearchHistoryEntryView(entry: SearchHistoryEntry): SearchHistoryEntryView {
  return {
    id: String(entry._id),
    surface: entry.surface,
    query: entry.query,
    filters: { ...(entry.filters ?? {}) },
    searchedAt: new Date(entry.createdAt).toISOString(),
  };
}
