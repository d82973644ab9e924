import { keepPreviousData, useQueries } from '@tanstack/react-query';
import { Alert, Badge, Button, Fieldset, Group, NativeSelect, Paper, Stack, Text, Title } from '@mantine/core';
import { Link } from '@tanstack/react-router';
import { useMemo } from 'react';
import { $api, asApiError } from '../api/client';
import { $search, searchFailureSentence, type SearchSort } from '../api/search';
import {
  ACCESS_LABELS,
  PROJECT_ACCESS,
  PROJECT_STATUSES,
  PROJECT_TYPES,
  STATUS_COLORS,
  STATUS_LABELS,
  typeLabel,
  type ContentProject,
  type ProjectAccess,
  type ProjectStatus,
  type ProjectType,
} from '../content';
import {
  Highlight,
  SearchBox,
  SearchPager,
  useSearchPages,
  wordMatcher,
  type RecentSearch,
  type SearchRequest,
} from '../search';
import { DateTime } from '../components/date-time';
import { ListTable } from '../components/list-table';
import { EmptyState, Spinner } from '../ui';
import { ProjectThumb } from './content-forms';

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
    <Paper withBorder p="md" mb="md">
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
      <Group align="flex-start" gap="md" mt="sm">
        <ChipGroup
          legend="Type"
          values={PROJECT_TYPES}
          labels={Object.fromEntries(PROJECT_TYPES.map((type) => [type, typeLabel(type)]))}
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
      </Group>
      <Group align="flex-end" gap="sm" mt="sm">
        <NativeSelect
          label="Order"
          value={state.sort}
          onChange={(event) => apply(state.filters, event.currentTarget.value as SearchSort)}
          data={SORTS.map((value) => ({ value, label: SORT_LABELS[value] }))}
        />
        {isSearching(state) && (
          <Button variant="default" onClick={() => onChange(NO_CONTENT_SEARCH)}>
            Clear search
          </Button>
        )}
      </Group>
    </Paper>
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
    <Fieldset legend={legend} variant="unstyled" p={0}>
      <Group gap={6}>
        {values.map((value) => {
          const pressed = selected === value;
          return (
            <Button
              key={value}
              size="compact-sm"
              radius="xl"
              variant={pressed ? 'filled' : 'default'}
              aria-pressed={pressed}
              onClick={() => onToggle(value)}
            >
              {labels?.[value] ?? value}
            </Button>
          );
        })}
      </Group>
    </Fieldset>
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
      <Title order={2} id="content-results-heading" mb="xs">
        {described}
      </Title>
      {results.error && (
        <Alert color="red" variant="light" role="alert">
          {searchFailureSentence(asApiError(results.error))}
        </Alert>
      )}
      {results.isPending && !results.error && <Spinner label="Searching content" />}
      {results.data && (
        <Text c="dimmed" fz="sm" role="status" mb="xs">
          {count === undefined
            ? `${rows.length} shown`
            : `${count} ${count === 1 ? 'project matches' : 'projects match'}`}
          . Results follow changes within a few seconds.
        </Text>
      )}
      {results.data && (
        <ListTable
          caption={described}
          rows={rows}
          rowKey={(project) => project._id}
          busy={results.isFetching}
          rowProps={(project) => ({ 'data-content-project': project._id })}
          empty={<EmptyState title="No content project matches.">Try fewer words or filters.</EmptyState>}
          columns={[
            {
              id: 'title',
              header: 'Project',
              cell: (project: ContentProject) => (
                <Group gap="sm" wrap="nowrap" align="flex-start">
                  <ProjectThumb type={typeLabel(project.projectTypeId)} />
                  <Stack gap={2}>
                    <Link
                      to="/content/projects/$projectId"
                      params={{ projectId: project._id }}
                      style={{ fontWeight: 500 }}
                    >
                      <Highlight text={project.primaryTitle} match={match} />
                    </Link>
                    {project.description && (
                      <Text fz="xs" c="dimmed" lineClamp={2}>
                        <Highlight text={project.description} match={match} />
                      </Text>
                    )}
                  </Stack>
                </Group>
              ),
            },
            { id: 'type', header: 'Type', width: 110, cell: (project) => typeLabel(project.projectTypeId) },
            {
              id: 'status',
              header: 'Status',
              width: 120,
              cell: (project) => (
                <Badge variant="light" color={STATUS_COLORS[project.status]}>
                  {STATUS_LABELS[project.status]}
                </Badge>
              ),
            },
            { id: 'access', header: 'Access', width: 120, cell: (project) => ACCESS_LABELS[project.access] },
            {
              id: 'channel',
              header: 'Channel',
              width: 140,
              cell: (project) => channelNames.get(project.channelId) ?? '—',
            },
            {
              id: 'updated',
              header: 'Updated',
              width: 170,
              cell: (project) => <DateTime value={project.updatedAt} />,
            },
          ]}
        />
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
