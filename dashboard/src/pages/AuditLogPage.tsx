import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { $api, api, call, type Schemas } from '../api/client';
import { queryEnums } from '../api/enums';
import type { paths } from '../api/schema';
import { useAction } from '../hooks';
import { formatDate } from '../money';
import { useSession } from '../session';
import {
  Badge,
  Button,
  EmptyState,
  Field,
  FormActions,
  FormError,
  LoadError,
  Options,
  SelectField,
  Spinner,
  Table,
} from '../ui';

const PAGE_SIZE = 20;
type Entry = Schemas['AuditEntryResponse'];
type Verdict = Schemas['AuditVerifyResponse'];
type AuditQuery = NonNullable<paths['/api/v1/accounts/{accountId}/audit-log']['get']['parameters']['query']>;
type Action = NonNullable<AuditQuery['action']>;
type ExportFormat = 'jsonl' | 'csv';

/** Every audited action, as the filter offers them: the values the document gives the filter. */
const ACTIONS: readonly Action[] = queryEnums['/api/v1/accounts/{accountId}/audit-log'].action;

interface Filters {
  action: Action | '';
  actorId: string;
  projectId: string;
  /** `datetime-local` values, in the browser's time zone. */
  from: string;
  to: string;
}

const NO_FILTERS: Filters = { action: '', actorId: '', projectId: '', from: '', to: '' };

/** The filters as the list and the export take them: RFC 3339 times, `to` through the end of its minute. */
function filterQuery(filters: Filters): Omit<AuditQuery, 'limit' | 'startingAfter'> {
  const time = (value: string, extraMs = 0) => new Date(new Date(value).getTime() + extraMs).toISOString();
  return {
    ...(filters.action ? { action: filters.action } : {}),
    ...(filters.actorId ? { actorId: filters.actorId } : {}),
    ...(filters.projectId ? { projectId: filters.projectId } : {}),
    ...(filters.from ? { from: time(filters.from) } : {}),
    ...(filters.to ? { to: time(filters.to, 59_999) } : {}),
  };
}

/** The account's audit log (admins and the owner): who did what to the platform and to money, with filters, an export and the chain's check. */
export function AuditLogPage() {
  const session = useSession();
  const accountId = session.account?.id ?? '';
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const query = useMemo(() => filterQuery(filters), [filters]);
  // Pages after the first come with "Load more"; a change that records an entry reads them all again.
  const log = useInfiniteQuery({
    queryKey: [
      'get',
      '/api/v1/accounts/{accountId}/audit-log',
      { params: { path: { accountId }, query: { limit: PAGE_SIZE, ...query } } },
      'pages',
    ],
    queryFn: ({ pageParam, signal }) =>
      call(
        api.GET('/api/v1/accounts/{accountId}/audit-log', {
          params: {
            path: { accountId },
            query: { limit: PAGE_SIZE, ...query, ...(pageParam ? { startingAfter: pageParam } : {}) },
          },
          signal,
        }),
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => (last.hasMore ? last.data.at(-1)?.id : undefined),
    enabled: session.isAdmin,
    placeholderData: keepPreviousData,
  });
  const rows = useMemo(() => log.data?.pages.flatMap((page) => page.data) ?? [], [log.data]);
  const loadingMore = log.isFetchingNextPage;

  const members = $api.useQuery(
    'get',
    '/api/v1/accounts/{accountId}/members',
    { params: { path: { accountId } } },
    { enabled: session.isAdmin },
  );
  const emails = useMemo(
    () => new Map((members.data?.data ?? []).map((member) => [member.userId, member.email])),
    [members.data],
  );
  // Members, and whoever else (a key, a former member) acted in the entries shown.
  const actors = useMemo(() => {
    const known = new Map<string, string>();
    for (const member of members.data?.data ?? []) known.set(member.userId, member.email);
    for (const entry of rows)
      if (!known.has(entry.actor.id))
        known.set(entry.actor.id, entry.actor.label ?? `${entry.actor.type} ${entry.actor.id.slice(-8)}`);
    if (filters.actorId && !known.has(filters.actorId)) known.set(filters.actorId, filters.actorId);
    return [...known].sort(([, a], [, b]) => a.localeCompare(b));
  }, [members.data, rows, filters.actorId]);
  const projectNames = useMemo(
    () => new Map(session.projects.map((project) => [project.id, project.name])),
    [session.projects],
  );

  const set = (name: keyof Filters) => (event: { target: { value: string } }) =>
    setFilters({ ...filters, [name]: event.target.value });
  const filtered = Object.values(filters).some(Boolean);

  if (!session.isAdmin) {
    return (
      <section aria-labelledby="audit-heading">
        <h1 id="audit-heading">Audit log</h1>
        <p className="notice">Only admins and the owner read the audit log: ask an admin of the account.</p>
      </section>
    );
  }
  return (
    <section aria-labelledby="audit-heading">
      <div className="page-head">
        <h1 id="audit-heading">Audit log</h1>
        <Button variant="secondary" busy={log.isFetching && !loadingMore} onClick={() => void log.refetch()}>
          Refresh
        </Button>
      </div>
      <p className="muted">
        What people and API keys did in {session.account?.name}, newest first: members, invitations, projects, keys,
        webhook endpoints, refunds and deletions. Entries are numbered and chained, so a changed or removed entry shows
        when the log is verified.
      </p>
      <form className="filters" aria-label="Filter the audit log" onSubmit={(event) => event.preventDefault()}>
        <SelectField label="Action" value={filters.action} onChange={set('action')}>
          <option value="">Every action</option>
          <Options values={ACTIONS} />
        </SelectField>
        <SelectField label="Actor" value={filters.actorId} onChange={set('actorId')}>
          <option value="">Anyone</option>
          {actors.map(([id, label]) => (
            <option key={id} value={id}>
              {label}
            </option>
          ))}
        </SelectField>
        <SelectField label="Project" value={filters.projectId} onChange={set('projectId')}>
          <option value="">Any project</option>
          {session.projects.map((project) => (
            <option key={project.id} value={project.id}>
              {project.name}
            </option>
          ))}
        </SelectField>
        <Field label="From" type="datetime-local" step={60} value={filters.from} onChange={set('from')} />
        <Field label="To" type="datetime-local" step={60} value={filters.to} onChange={set('to')} />
        {filtered && (
          <Button variant="secondary" onClick={() => setFilters(NO_FILTERS)}>
            Clear filters
          </Button>
        )}
        {log.isFetching && !loadingMore && <Spinner label="Loading the audit log" />}
      </form>
      <ExportForm accountId={accountId} query={query} />
      <VerifyPanel accountId={accountId} />
      {log.error && <LoadError error={log.error} retry={() => void log.refetch()} />}
      {log.error?.status === 400 && <p className="field-hint">Check the filters: the service refused them.</p>}
      {log.data && rows.length === 0 && (
        <EmptyState title={filtered ? 'No entries match these filters.' : 'No entries yet.'}>
          {filtered
            ? 'Change or clear the filters.'
            : 'Invite a member or create an API key: each such change records an entry here.'}
        </EmptyState>
      )}
      {rows.length > 0 && (
        // Focusable: the table scrolls sideways on narrow screens, and holds nothing else a keyboard reaches.
        <div
          className="table-wrap audit-table"
          role="region"
          aria-label="Audit log entries"
          tabIndex={0}
          aria-busy={log.isFetching || undefined}
        >
          <Table
            caption="Audit log entries, newest first"
            columns={['Time', 'Action', 'Actor', 'Target', 'Project', 'Changes']}
          >
            {rows.map((entry) => (
              <EntryRow key={entry.id} entry={entry} emails={emails} projectNames={projectNames} />
            ))}
          </Table>
        </div>
      )}
      {log.hasNextPage && (
        <div className="pager">
          <Button variant="secondary" busy={loadingMore} onClick={() => void log.fetchNextPage()}>
            Load more entries
          </Button>
          <span className="muted small">{rows.length} shown</span>
        </div>
      )}
    </section>
  );
}

function EntryRow({
  entry,
  emails,
  projectNames,
}: {
  entry: Entry;
  emails: Map<string, string>;
  projectNames: Map<string, string>;
}) {
  const target = entry.target.label ?? (entry.target.type === 'user' ? emails.get(entry.target.id) : undefined);
  return (
    <tr
      data-sequence={entry.sequence}
      data-action={entry.action}
      data-actor={entry.actor.id}
      data-target={entry.target.id}
    >
      <td className="audit-time">
        <time dateTime={entry.occurredAt}>{formatDate(entry.occurredAt)}</time>
        <span className="muted small"> #{entry.sequence}</span>
      </td>
      <th scope="row" className="mono small">
        {entry.action}
      </th>
      <td className="audit-party">
        {entry.actor.label ?? <span className="mono small">{entry.actor.id.slice(-8)}</span>}
        {entry.actor.type === 'api_key' && <Badge>API key</Badge>}
      </td>
      <td className="audit-party">
        <span className="muted small">{entry.target.type.replace(/_/g, ' ')}</span>{' '}
        {target ?? <span className="mono small">{entry.target.id.slice(-8)}</span>}
      </td>
      <td>
        {entry.projectId
          ? (projectNames.get(entry.projectId) ?? <span className="mono small">{entry.projectId.slice(-8)}</span>)
          : '—'}
      </td>
      <td className="small audit-changes">{changesSummary(entry.changes)}</td>
    </tr>
  );
}

/** `role: developer → manager; name: … → …`, each value cut short. */
function changesSummary(changes: Entry['changes']): string {
  if (!changes) return '—';
  const show = (value: unknown) => {
    const text =
      value === null || value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value);
    return text.length > 40 ? `${text.slice(0, 39)}…` : text;
  };
  const parts = Object.entries(changes).map(([field, pair]) => {
    const [before, after] = Array.isArray(pair) ? pair : [undefined, pair];
    return `${field}: ${show(before)} → ${show(after)}`;
  });
  return parts.length ? parts.join('; ') : '—';
}

/** Downloads the entries the filters select, oldest first, as JSON lines or CSV: fetched with the token, saved from a blob. */
function ExportForm({ accountId, query }: { accountId: string; query: Omit<AuditQuery, 'limit' | 'startingAfter'> }) {
  const [format, setFormat] = useState<ExportFormat>('jsonl');
  const download = useAction(async () => {
    const blob = await call(
      api.GET('/api/v1/accounts/{accountId}/audit-log/export', {
        params: { path: { accountId }, query: { ...query, format } },
        parseAs: 'blob',
      }),
    );
    const url = URL.createObjectURL(blob);
    const link = document.createElement('a');
    link.href = url;
    link.download = `audit-log-${accountId}.${format}`;
    document.body.append(link);
    link.click();
    link.remove();
    // After the browser took the file.
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  });
  return (
    <form
      className="inline-form card"
      aria-label="Export the audit log"
      onSubmit={(event) => {
        event.preventDefault();
        void download.run();
      }}
    >
      <SelectField
        label="Export format"
        value={format}
        onChange={(event) => setFormat(event.target.value as ExportFormat)}
        hint="With the filters above, oldest first."
      >
        <option value="jsonl">JSON lines</option>
        <option value="csv">CSV</option>
      </SelectField>
      <FormActions variant="secondary" busy={download.busy}>
        Download export
      </FormActions>
      <FormError error={download.error} />
    </form>
  );
}

/** Walks the whole chain on the service and says whether it holds, or where it first breaks. */
function VerifyPanel({ accountId }: { accountId: string }) {
  const [verdict, setVerdict] = useState<Verdict | undefined>();
  const verify = useAction(async () =>
    setVerdict(
      await call(api.GET('/api/v1/accounts/{accountId}/audit-log/verify', { params: { path: { accountId } } })),
    ),
  );
  return (
    <div className="inline-form card">
      <Button variant="secondary" busy={verify.busy} onClick={() => void verify.run()}>
        Verify the log
      </Button>
      <p role="status" className="verdict">
        {verdict &&
          (verdict.valid ? (
            <>
              <Badge tone="good">Valid</Badge> All {verdict.checked} entries are numbered without gaps and chained.
            </>
          ) : (
            <>
              <Badge tone="bad">Broken</Badge> The chain first breaks at entry #{verdict.firstBrokenSequence} (
              {verdict.checked} entries before it hold).
            </>
          ))}
      </p>
      <FormError error={verify.error} />
    </div>
  );
}
