import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent, type ReactNode } from 'react';
import { $api, api, asApiError, call, type ApiError, type Schemas } from './api/client';
import { searchFailureSentence } from './api/search';
import { useAction } from './hooks';
import { Button } from './ui';

export type SearchSurface = Schemas['SearchHistoryEntryView']['surface'];
export type RecentSearch = Schemas['SearchHistoryEntryView'];

/** What a search box runs: its words (or query); the filters of a recent search run again (none: the page's own, as they are). */
export interface SearchRequest {
  query: string;
  filters?: Record<string, string>;
}

const HISTORY = '/api/v1/me/search-history';
/** Recent searches shown under a box. */
const RECENT_SHOWN = 8;

/** Whether a key press is typing somewhere: `/` then types a slash there instead of jumping to the search box. */
function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/**
 * The search box of a page: `/` focuses it from anywhere on the page but another field; Enter runs
 * the words; while it has focus, the user's recent searches of this surface show under it (arrow
 * keys move through them, Enter runs one, Delete removes it, Escape closes), with "Clear all" and
 * the pause of the history.
 */
export function SearchBox({
  surface,
  label,
  placeholder,
  value,
  onChange,
  onRun,
  describe,
  hint,
}: {
  surface: SearchSurface;
  label: string;
  placeholder: string;
  value: string;
  onChange: (value: string) => void;
  onRun: (search: SearchRequest) => void;
  /** A recent search as a line: its words and its filters. */
  describe?: (search: RecentSearch) => string;
  hint?: ReactNode;
}) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  const [open, setOpen] = useState(false);
  // The box gets focus back when the list closes (a search run, Escape): that focus must not reopen it.
  const refocusing = useRef(false);
  // ↓ on a closed list opens it, then moves to its first search once the list is drawn.
  const [toFirst, setToFirst] = useState(false);

  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
      event.preventDefault();
      input.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  const items = () => Array.from(panel.current?.querySelectorAll<HTMLButtonElement>('[data-recent-run]') ?? []);
  const closeToBox = () => {
    setOpen(false);
    refocusing.current = true;
    input.current?.focus();
    refocusing.current = false;
  };
  const run = (search: SearchRequest) => {
    onRun(search);
    closeToBox();
  };

  function onInputKey(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      const first = items()[0];
      if (first) first.focus();
      else {
        setOpen(true);
        setToFirst(true);
      }
    } else if (event.key === 'Escape' && open) {
      event.preventDefault();
      setOpen(false);
    }
  }

  function onPanelKey(event: KeyboardEvent<HTMLDivElement>) {
    const all = items();
    const at = all.indexOf(document.activeElement as HTMLButtonElement);
    if (event.key === 'Escape') {
      event.preventDefault();
      closeToBox();
    } else if (event.key === 'ArrowDown' && at >= 0) {
      event.preventDefault();
      all[Math.min(at + 1, all.length - 1)]?.focus();
    } else if (event.key === 'ArrowUp' && at >= 0) {
      event.preventDefault();
      if (at === 0) input.current?.focus();
      else all[at - 1]?.focus();
    }
  }

  return (
    <div
      className="search-box"
      onFocus={() => {
        if (!refocusing.current) setOpen(true);
      }}
      onBlur={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <form
        role="search"
        aria-label={label}
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          run({ query: value.trim() });
        }}
      >
        <label htmlFor={id}>{label}</label>
        <div className="search-row">
          <input
            ref={input}
            id={id}
            type="search"
            className="search-input"
            value={value}
            placeholder={placeholder}
            autoComplete="off"
            spellCheck={false}
            aria-describedby={`${id}-keys`}
            onChange={(event) => onChange(event.target.value)}
            onClick={() => setOpen(true)}
            onKeyDown={onInputKey}
          />
          <Button type="submit">Search</Button>
        </div>
        <p className="field-hint" id={`${id}-keys`}>
          {hint} Press <kbd>/</kbd> to search from anywhere on the page, <kbd>↓</kbd> for your recent searches.
        </p>
      </form>
      {open && (
        // A click on the list keeps the focus where it is (the box, or a search reached by the arrows): the list stays open.
        <div
          ref={panel}
          className="search-recent"
          onKeyDown={onPanelKey}
          onMouseDown={(event) => event.preventDefault()}
        >
          <RecentSearches
            surface={surface}
            describe={describe ?? ((search) => search.query)}
            onRun={run}
            onEmptyAfterRemoval={() => input.current?.focus()}
            focusFirst={toFirst}
            onFocusedFirst={() => setToFirst(false)}
          />
        </div>
      )}
    </div>
  );
}

/** The recent searches of a surface, each to run again or remove; "Clear all" and the pause. */
function RecentSearches({
  surface,
  describe,
  onRun,
  onEmptyAfterRemoval,
  focusFirst,
  onFocusedFirst,
}: {
  surface: SearchSurface;
  describe: (search: RecentSearch) => string;
  onRun: (search: SearchRequest) => void;
  onEmptyAfterRemoval: () => void;
  focusFirst: boolean;
  onFocusedFirst: () => void;
}) {
  const headingId = useId();
  const history = $api.useQuery('get', HISTORY, { params: { query: { surface, limit: RECENT_SHOWN } } });
  const invalidates = [HISTORY] as const;
  const remove = useAction(
    (id: string) => call(api.DELETE('/api/v1/me/search-history/{id}', { params: { path: { id } } })),
    { invalidates },
  );
  const clear = useAction(() => call(api.DELETE(HISTORY)), { invalidates });
  const pause = useAction(
    (paused: boolean) => call(api.PUT('/api/v1/me/search-history/settings', { body: { paused } })),
    { invalidates },
  );
  const entries = history.data?.data ?? [];
  const list = useRef<HTMLUListElement>(null);
  useEffect(() => {
    if (!focusFirst || !history.data) return;
    list.current?.querySelector<HTMLButtonElement>('[data-recent-run]')?.focus();
    onFocusedFirst();
  }, [focusFirst, history.data, onFocusedFirst]);
  const paused = history.data?.settings.paused ?? false;
  const failure: ApiError | undefined = history.error
    ? asApiError(history.error)
    : (remove.error ?? clear.error ?? pause.error);

  async function removeOne(entry: RecentSearch, index: number) {
    await remove.run(entry.id);
    // Focus stays in the list: on the next search, else the previous one, else the box.
    requestAnimationFrame(() => {
      const left = Array.from(document.querySelectorAll<HTMLButtonElement>('.search-recent [data-recent-run]'));
      const next = left[Math.min(index, left.length - 1)];
      if (next) next.focus();
      else onEmptyAfterRemoval();
    });
  }

  return (
    <section aria-labelledby={headingId}>
      <h2 id={headingId} className="search-recent-title">
        Recent searches
      </h2>
      {history.isPending && <p className="muted small">Loading your recent searches…</p>}
      {paused && <p className="muted small">Your search history is paused: new searches are not kept.</p>}
      {history.data && entries.length === 0 && (
        <p className="muted small">{paused ? 'Nothing kept.' : 'Your searches here will show up here.'}</p>
      )}
      {entries.length > 0 && (
        <ul ref={list} className="search-recent-list" aria-labelledby={headingId}>
          {entries.map((entry, index) => (
            <li key={entry.id}>
              <button
                type="button"
                className="search-recent-run"
                data-recent-run=""
                onClick={() => onRun({ query: entry.query, filters: entry.filters })}
                onKeyDown={(event) => {
                  if (event.key === 'Delete') {
                    event.preventDefault();
                    void removeOne(entry, index);
                  }
                }}
              >
                {describe(entry)}
              </button>
              <Button
                variant="link"
                className="search-recent-remove"
                aria-label={`Remove ${describe(entry)} from recent searches`}
                onClick={() => void removeOne(entry, index)}
              >
                Remove
              </Button>
            </li>
          ))}
        </ul>
      )}
      <div className="search-recent-actions">
        {entries.length > 0 && (
          <Button variant="link" busy={clear.busy} onClick={() => void clear.run()}>
            Clear all
          </Button>
        )}
        <Button variant="link" busy={pause.busy} aria-pressed={paused} onClick={() => void pause.run(!paused)}>
          Pause search history
        </Button>
      </div>
      {failure && (
        <p className="field-error" role="alert">
          {searchFailureSentence(failure)}
        </p>
      )}
    </section>
  );
}

/** Where `text` holds a match: the words (prefixes, one typo in words of 5 letters or more) or the quoted values of a query. */
export type Matcher = (text: string) => [number, number][];

/** Nothing to mark: a list that is not a search's answer. */
export const NO_MATCH: Matcher = () => [];

/** Words of a content search: each word of the text that starts with one of them, or is one of them within one typo (5 letters or more). */
export function wordMatcher(query: string): Matcher {
  const words = query
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  return (text) => {
    if (words.length === 0) return [];
    const ranges: [number, number][] = [];
    for (const found of text.matchAll(/[\p{L}\p{N}]+/gu)) {
      const token = found[0].toLowerCase();
      const hit = words.some(
        (word) =>
          token.startsWith(word) ||
          (word.length >= 5 && withinOneEdit(token.slice(0, word.length + 1), word)) ||
          (word.length >= 5 && withinOneEdit(token, word)),
      );
      if (hit) ranges.push([found.index, found.index + found[0].length]);
    }
    return ranges;
  };
}

/** The values a query in Stripe's language compares (`email:'jenny@example.com'`, `name~'jen'`), found anywhere in a text, in any case. */
export function quotedValueMatcher(query: string): Matcher {
  const values = [...query.matchAll(/'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"/g)]
    .map((found) => (found[1] ?? found[2] ?? '').replace(/\\(.)/g, '$1').toLowerCase())
    .filter(Boolean);
  return (text) => {
    const lower = text.toLowerCase();
    const ranges: [number, number][] = [];
    for (const value of values) {
      for (let at = lower.indexOf(value); at >= 0; at = lower.indexOf(value, at + value.length))
        ranges.push([at, at + value.length]);
    }
    return ranges;
  };
}

function withinOneEdit(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) return a.slice(i + 1) === b.slice(i + 1);
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/** The text with what the search matched marked (`<mark>`). */
export function Highlight({ text, match }: { text: string | null | undefined; match: Matcher }) {
  if (!text) return null;
  const ranges = match(text).sort((a, b) => a[0] - b[0]);
  const parts: ReactNode[] = [];
  let at = 0;
  for (const [start, end] of ranges) {
    if (start < at) continue;
    if (start > at) parts.push(text.slice(at, start));
    parts.push(<mark key={start}>{text.slice(start, end)}</mark>);
    at = end;
  }
  if (at < text.length) parts.push(text.slice(at));
  return <>{parts}</>;
}

/** Previous / next through a search's pages (`next_page` sent back as `page`). */
export function SearchPager({
  pages,
  hasMore,
  nextPage,
  busy,
}: {
  pages: SearchPages;
  hasMore: boolean;
  nextPage: string | null;
  busy: boolean;
}) {
  if (pages.index === 0 && !hasMore) return null;
  return (
    <nav className="pager" aria-label="Result pages">
      <Button variant="secondary" onClick={pages.previous} disabled={pages.index === 0 || busy}>
        Previous
      </Button>
      <span>Page {pages.index + 1}</span>
      <Button variant="secondary" onClick={() => nextPage && pages.next(nextPage)} disabled={!hasMore || busy}>
        Next
      </Button>
    </nav>
  );
}

export type SearchPages = ReturnType<typeof useSearchPages>;

/** The `page` of each result page seen so far. */
export function useSearchPages() {
  const [tokens, setTokens] = useState<(string | undefined)[]>([undefined]);
  return {
    index: tokens.length - 1,
    page: tokens[tokens.length - 1],
    next: (token: string) => setTokens((stack) => [...stack, token]),
    previous: () => setTokens((stack) => (stack.length > 1 ? stack.slice(0, -1) : stack)),
    reset: () => setTokens([undefined]),
  };
}
