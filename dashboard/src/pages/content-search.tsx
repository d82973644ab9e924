import { keepPreviousData, useQueries } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useMemo } from 'react';
import { $api, asApiError } from '../api/client';
import { $search, searchFailureSentence, type SearchSort } from '../api/search';
import {
  ACCESS_LABELS,
  PROJECT_ACCESS,
  PROJECT_STATUSES,
  PROJECT_TYPES,
  STATUS_TONES,
  type ProjectAccess,
  type ProjectStatus,
  type ProjectType,
} from '../content';
import { formatDate } from '../money';
import {
  Highlight,
  SearchBox,
  SearchPager,
  useSearchPages,
  wordMatcher,
  type RecentSearch,
  type SearchRequest,
} from '../search';
import { Badge, Button, DataTable, EmptyState, Options, SelectField, Spinner } from '../ui';

/** The filters beside the words, as `GET /projects/search` takes them. */
export interface ContentFilters {
  projectTypeId?: ProjectType;
  status?: ProjectStatus;
  access?: ProjectAccess;
  channelId?: string;
}

export interface ContentSearchState {
  /** What the box holds. */
  typed: string;
  /** The words of the search shown, and its filters and order. */
  q: string;
  filters: ContentFilters;
  sort: SearchSort;
}

export const NO_CONTENT_SEARCH: ContentSearchState = { typed: '', q: '', filters: {}, sort: 'relevance' };

/** A search is shown when it has words or a filter; the order alone lists nothing. */
export function isSearching(state: ContentSearchState): boolean {
  return state.q !== '' || Object.values(state.filters).some(Boolean);
}

const SORTS: readonly SearchSort[] = ['relevance', 'newest', 'oldest'];
const SORT_LABELS: Record<SearchSort, string> = {
  relevance: 'Best match',
  newest: 'Newest first',
  oldest: 'Oldest first',
};
const STATUS_LABELS: Record<ProjectStatus, string> = { draft: 'Draft', published: 'Published', archived: 'Archived' };
const LIMIT = 100;
const RESULTS_PAGE = 20;

/** Every channel of the project's clients (the reads the content tree makes too), for the channel filter and the results. */
function useChannels(): { _id: string; name: string }[] {
  const clients = $api.useQuery('get', '/clients', { params: { query: { limit: LIMIT } } });
  const channels = useQueries({
    queries: (clients.data ?? []).map((client) =>
      $api.queryOptions('get', '/channels/client/{clientId}', {
        params: { path: { clientId: client._id }, query: { limit: LIMIT } },
      }),
    ),
  });
  return channels.flatMap((query) => query.data ?? []);
}

/** A recent content search's filters, as far as this page knows them. */
function filtersOf(recorded: Record<string, string>): { filters: ContentFilters; sort: SearchSort } {
  const pick = <T extends string>(values: readonly T[], value: string | undefined): T | undefined =>
    (values as readonly string[]).includes(value ?? '') ? (value as T) : undefined;
  const filters: ContentFilters = {
    projectTypeId: pick(PROJECT_TYPES, recorded.projectTypeId),
    status: pick(PROJECT_STATUSES, recorded.status),
    access: pick(PROJECT_ACCESS, recorded.access),
    channelId: /^[0-9a-f]{24}$/i.test(recorded.channelId ?? '') ? recorded.channelId : undefined,
  };
  return { filters, sort: pick(SORTS, recorded.sort) ?? 'relevance' };
}

/**
 * The search of the content: the words, chips for the type, status, access and channel (one of each,
 * pressed again to drop it), and the order. A chip applies at once, with the words in the box.
 */
export function ContentSearch({
  state,
  onChange,
}: {
  state: ContentSearchState;
  onChange: (next: ContentSearchState) => void;
}) {
  const channels = useChannels();
  const channelNames = new Map(channels.map((channel) => [channel._id, channel.name]));
  const apply = (filters: ContentFilters, sort = state.sort) =>
    onChange({ ...state, q: state.typed.trim(), filters, sort });
  const toggle = <K extends keyof ContentFilters>(name: K, value: ContentFilters[K]) =>
    apply({ ...state.filters, [name]: state.filters[name] === value ? undefined : value });

  const describe = (search: RecentSearch) => {
    const { filters, sort } = filtersOf(search.filters);
    const labels = [
      filters.projectTypeId,
      filters.status && STATUS_LABELS[filters.status],
      filters.access && ACCESS_LABELS[filters.access],
      filters.channelId && (channelNames.get(filters.channelId) ?? 'a channel'),
      sort !== 'relevance' ? SORT_LABELS[sort] : undefined,
    ].filter(Boolean);
    return [search.query || 'Everything', ...labels].join(' · ');
  };
  const run = ({ query, filters }: SearchRequest) => {
    if (filters) onChange({ typed: query, q: query, ...filtersOf(filters) });
    else onChange({ ...state, typed: query, q: query });
  };

  return (
    <div className="card search-card">
      <SearchBox
        surface="projects"
        label="Search content"
        placeholder="Titles, descriptions and topics, e.g. blue hours"
        value={state.typed}
        onChange={(typed) => onChange({ ...state, typed })}
        onRun={run}
        describe={describe}
        hint="Words match as typed or as the start of a word, and within one typo for longer words."
      />
      <div className="chip-groups">
        <ChipGroup
          legend="Type"
          values={PROJECT_TYPES}
          selected={state.filters.projectTypeId}
          onToggle={(value) => toggle('projectTypeId', value)}
        />
        <ChipGroup
          legend="Status"
          values={PROJECT_STATUSES}
          labels={STATUS_LABELS}
          selected={state.filters.status}
          onToggle={(value) => toggle('status', value)}
        />
        <ChipGroup
          legend="Access"
          values={PROJECT_ACCESS}
          labels={ACCESS_LABELS}
          selected={state.filters.access}
          onToggle={(value) => toggle('access', value)}
        />
        {channels.length > 0 && (
          <ChipGroup
            legend="Channel"
            values={channels.map((channel) => channel._id)}
            labels={Object.fromEntries(channelNames)}
            selected={state.filters.channelId}
            onToggle={(value) => toggle('channelId', value)}
          />
        )}
      </div>
      <div className="filters">
        <SelectField
          label="Order"
          value={state.sort}
          onChange={(event) => apply(state.filters, event.target.value as SearchSort)}
        >
          <Options values={SORTS} labels={SORT_LABELS} />
        </SelectField>
        {isSearching(state) && (
          <Button variant="secondary" onClick={() => onChange(NO_CONTENT_SEARCH)}>
            Clear search
          </Button>
        )}
      </div>
    </div>
  );
}

function ChipGroup<V extends string>({
  legend,
  values,
  labels,
  selected,
  onToggle,
}: {
  legend: string;
  values: readonly V[];
  labels?: Partial<Record<V, string>>;
  selected: V | undefined;
  onToggle: (value: V) => void;
}) {
  return (
    <fieldset className="chip-group">
      <legend>{legend}</legend>
      {values.map((value) => (
        <button
          key={value}
          type="button"
          className="chip-toggle"
          aria-pressed={selected === value}
          onClick={() => onToggle(value)}
        >
          {labels?.[value] ?? value}
        </button>
      ))}
    </fieldset>
  );
}

/** One page of the content search's results, the matched words marked in titles and descriptions. */
export function ContentResults({ state }: { state: ContentSearchState }) {
  const pages = useSearchPages();
  const channels = useChannels();
  const channelNames = useMemo(() => new Map(channels.map((channel) => [channel._id, channel.name])), [channels]);
  const query = {
    ...(state.q ? { q: state.q } : {}),
    ...state.filters,
    sort: state.sort,
    limit: RESULTS_PAGE,
    ...(pages.page ? { page: pages.page } : {}),
  };
  const results = $search.useQuery(
    'get',
    '/projects/search',
    { params: { query } },
    { placeholderData: keepPreviousData },
  );
  const match = useMemo(() => wordMatcher(state.q), [state.q]);
  const described = state.q ? `Results for ${state.q}` : 'Filtered content';
  const rows = results.data?.data ?? [];
  const count = results.data?.total_count;
  return (
    <section aria-labelledby="content-results-heading">
      <h2 id="content-results-heading">{described}</h2>
      {results.error && (
        <p className="form-error" role="alert">
          {searchFailureSentence(asApiError(results.error))}
        </p>
      )}
      {results.isPending && !results.error && <Spinner label="Searching content" />}
      {results.data && (
        <p className="muted small" role="status">
          {count === undefined
            ? `${rows.length} shown`
            : `${count} ${count === 1 ? 'project matches' : 'projects match'}`}
          . Results follow changes within a few seconds.
        </p>
      )}
      {results.data && rows.length === 0 && (
        <EmptyState title="No content project matches.">Try fewer words or filters.</EmptyState>
      )}
      {rows.length > 0 && (
        <DataTable
          busy={results.isFetching}
          caption={described}
          columns={['Title', 'Type', 'Status', 'Access', 'Channel', 'Updated']}
        >
          {rows.map((project) => (
            <tr key={project._id} data-content-project={project._id}>
              <th scope="row">
                <Link to="/content/projects/$projectId" params={{ projectId: project._id }}>
                  <Highlight text={project.primaryTitle} match={match} />
                </Link>
                {project.description && (
                  <span className="muted small search-snippet">
                    <Highlight text={project.description} match={match} />
                  </span>
                )}
              </th>
              <td>{project.projectTypeId}</td>
              <td>
                <Badge tone={STATUS_TONES[project.status]}>{project.status}</Badge>
              </td>
              <td>{ACCESS_LABELS[project.access]}</td>
              <td>{channelNames.get(project.channelId) ?? '—'}</td>
              <td>{formatDate(project.updatedAt)}</td>
            </tr>
          ))}
        </DataTable>
      )}
      <SearchPager
        pages={pages}
        hasMore={results.data?.has_more ?? false}
        nextPage={results.data?.next_page ?? null}
        busy={results.isFetching}
      />
    </section>
  );
}

/** A stable key of a search shown: a new search starts at its first page. */
export function searchKey(state: ContentSearchState): string {
  return JSON.stringify([state.q, state.filters, state.sort]);
}
