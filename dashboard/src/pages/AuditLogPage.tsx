import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { $api, api, call, type Schemas } from '../api/client';
import { queryEnums } from '../api/enums';
import type { paths } from '../api/schema';
import { useAction } from '../hooks';
import { formatDate, formatMoney } from '../money';
import { Text, Tooltip } from '@mantine/core';
import { ListTable, type ListColumn } from '../components/list-table';
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

  const columns = useMemo(
    () => auditColumns(emails, projectNames, session.project?.id),
    [emails, projectNames, session.project?.id],
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
        <div role="region" aria-label="Audit log entries" tabIndex={0}>
          <ListTable
            caption="Audit log entries, newest first"
            rows={rows}
            columns={columns}
            rowKey={(entry) => entry.id}
            busy={log.isFetching}
            rowProps={(entry) => ({
              'data-sequence': String(entry.sequence),
              'data-action': entry.action,
              'data-actor': entry.actor.id,
              'data-target': entry.target.id,
            })}
          />
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

/** A name that may be long (an email): on one line, cut with an ellipsis, whole in a tooltip and for screen readers. */
function Party({ label, kind }: { label: string; kind?: string }) {
  return (
    <Tooltip label={label} openDelay={300} withinPortal>
      <Text span display="block" fz="sm" truncate="end" tabIndex={0}>
        {kind && (
          <Text span c="var(--muted)" fz="xs">
            {kind}{' '}
          </Text>
        )}
        {/* An email, an id or a key's name: most change every run. */}
        <span data-dynamic>{label}</span>
      </Text>
    </Tooltip>
  );
}

function auditColumns(
  emails: Map<string, string>,
  projectNames: Map<string, string>,
  currentProject: string | undefined,
): ListColumn<Entry>[] {
  return [
    {
      id: 'time',
      header: 'Time',
      width: 150,
      cell: (entry) => (
        <>
          <time dateTime={entry.occurredAt} data-dynamic>
            {formatDate(entry.occurredAt)}
          </time>
          <Text span c="var(--muted)" fz="xs">
            {' '}
            #{entry.sequence}
          </Text>
        </>
      ),
    },
    {
      id: 'action',
      header: 'Action',
      width: 170,
      cell: (entry) => (
        <Text span ff="monospace" fz="xs">
          {entry.action}
        </Text>
      ),
    },
    {
      id: 'actor',
      header: 'Actor',
      width: 180,
      cell: (entry) => (
        <>
          <Party label={entry.actor.label ?? entry.actor.id.slice(-8)} />
          {entry.actor.type === 'api_key' && <Badge>API key</Badge>}
        </>
      ),
    },
    {
      id: 'target',
      header: 'Target',
      width: 190,
      cell: (entry) => {
        const target = entry.target.label ?? (entry.target.type === 'user' ? emails.get(entry.target.id) : undefined);
        return <Party kind={entry.target.type.replace(/_/g, ' ')} label={target ?? entry.target.id.slice(-8)} />;
      },
    },
    {
      id: 'project',
      header: 'Project',
      width: 120,
      cell: (entry) => (entry.projectId ? (projectNames.get(entry.projectId) ?? entry.projectId.slice(-8)) : '—'),
    },
    {
      id: 'changes',
      header: 'Changes',
      cell: (entry) =>
        entry.action === 'payment.refunded' ? (
          <RefundAmount entry={entry} readable={entry.projectId === currentProject} />
        ) : (
          <Text span fz="xs">
            {changesSummary(entry.changes)}
          </Text>
        ),
    },
  ];
}

type PaymentObject = { amount: number; amountRefunded: number; currency: string };

/**
 * A refund's amount and currency: the entry names the payment and the request, and the payment's
 * `payment.refunded` event of that request says what it moved (events of the project shown, kept 30
 * days).
 */
function RefundAmount({ entry, readable }: { entry: Entry; readable: boolean }) {
  const events = $api.useQuery(
    'get',
    '/v1/events',
    { params: { query: { object: entry.target.id, type: 'payment.refunded', limit: 100 } } },
    { enabled: readable },
  );
  const event = events.data?.data.find((candidate) => candidate.request.id === entry.requestId);
  if (!event) {
    return (
      <Text span fz="xs" c="var(--muted)">
        {readable && events.isPending ? 'Reading the amount…' : 'Refund (amount shown in its project)'}
      </Text>
    );
  }
  const after = event.data.object as PaymentObject;
  const before = (event.data.previousAttributes ?? {}) as Partial<PaymentObject>;
  return (
    <Text span fz="sm" fw={600} data-refund-amount="">
      {formatMoney(after.amountRefunded - (before.amountRefunded ?? 0), after.currency)} refunded
    </Text>
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
