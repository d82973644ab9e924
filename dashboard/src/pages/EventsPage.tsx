import { keepPreviousData } from '@tanstack/react-query';
import { useState } from 'react';
import { $api, type Schemas } from '../api/client';
import { queryEnums } from '../api/enums';
import type { paths } from '../api/schema';
import { formatDate } from '../money';
import { useSession } from '../session';
import { Button, DataTable, EmptyState, Options, Pager, QueryStatus, SelectField, useCursor } from '../ui';

const PAGE_SIZE = 20;
type EventType = NonNullable<NonNullable<paths['/v1/events']['get']['parameters']['query']>['type']>;
type Event = Schemas['EventResponse'];

/** The event types a change records, as the list filter offers them: the values the document gives the filter. */
const TYPES: readonly EventType[] = queryEnums['/v1/events'].type;

export function EventsPage() {
  const session = useSession();
  const cursor = useCursor();
  const [type, setType] = useState<EventType | ''>('');
  const events = $api.useQuery(
    'get',
    '/v1/events',
    {
      params: {
        query: {
          limit: PAGE_SIZE,
          ...(type ? { type } : {}),
          ...(cursor.startingAfter ? { startingAfter: cursor.startingAfter } : {}),
        },
      },
    },
    { placeholderData: keepPreviousData },
  );
  const [open, setOpen] = useState<string | undefined>();
  const rows = events.data?.data ?? [];

  return (
    <section aria-labelledby="events-heading">
      <div className="page-head">
        <h1 id="events-heading">Events</h1>
        <Button variant="secondary" busy={events.isFetching} onClick={() => void events.refetch()}>
          Refresh
        </Button>
      </div>
      <p className="muted">
        What changed in {session.project?.name ?? 'this project'}, newest first. Webhook endpoints receive these same
        events.
      </p>
      <SelectField
        label="Type"
        value={type}
        onChange={(event) => {
          setType(event.target.value as EventType | '');
          cursor.reset();
        }}
      >
        <option value="">Every type</option>
        <Options values={TYPES} />
      </SelectField>
      <QueryStatus query={events} loading="Loading events" />
      {events.data && rows.length === 0 && cursor.page === 0 && (
        <EmptyState title={type ? `No ${type} events.` : 'No events yet.'}>
          Create a customer or take a payment: each change records an event here.
        </EmptyState>
      )}
      {rows.length > 0 && (
        <DataTable
          busy={events.isFetching}
          caption="Events, newest first"
          columns={['Type', 'Object', 'Created', { hidden: 'Details' }]}
        >
          {rows.map((event) => (
            <EventRow
              key={event.id}
              event={event}
              open={open === event.id}
              onToggle={() => setOpen(open === event.id ? undefined : event.id)}
            />
          ))}
        </DataTable>
      )}
      <Pager cursor={cursor} list={events} lastId={rows.at(-1)?.id} />
    </section>
  );
}

function EventRow({ event, open, onToggle }: { event: Event; open: boolean; onToggle: () => void }) {
  const object = event.data.object as { id?: string; _id?: string };
  return (
    <>
      <tr>
        <th scope="row" className="mono">
          {event.type}
        </th>
        <td className="mono">{object.id ?? object._id ?? '—'}</td>
        <td>{formatDate(event.createdAt)}</td>
        <td>
          <Button variant="secondary" onClick={onToggle} aria-expanded={open}>
            {open ? 'Hide JSON' : 'Show JSON'}
            <span className="visually-hidden"> of {event.id}</span>
          </Button>
        </td>
      </tr>
      {open && (
        <tr>
          <td colSpan={4}>
            <pre className="json" aria-label={`Event ${event.id}`} tabIndex={0}>
              {JSON.stringify(event, null, 2)}
            </pre>
          </td>
        </tr>
      )}
    </>
  );
}
