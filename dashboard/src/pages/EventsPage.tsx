import { Code, Modal, Stack, Text, Title } from '@mantine/core';
import { keepPreviousData } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { $api, type Schemas } from '../api/client';
import { queryEnums } from '../api/enums';
import type { paths } from '../api/schema';
import { DateTime } from '../components/date-time';
import { ListTable, type ListColumn } from '../components/list-table';
import { formatDate } from '../money';
import { useSession } from '../session';
import { Button, EmptyState, Options, Pager, QueryStatus, SelectField, useCursor } from '../ui';
import { EventDeliveries, useSeesDeliveries } from './event-deliveries';

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
        events. Open one to read what it carried and where it was delivered.
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
      {rows.length > 0 && <EventsTable events={rows} busy={events.isFetching} caption="Events, newest first" />}
      <Pager cursor={cursor} list={events} lastId={rows.at(-1)?.id} />
    </section>
  );
}

/** Events as a list; each opens its payload and its deliveries in a dialog. */
export function EventsTable({ events, busy, caption }: { events: Event[]; busy?: boolean; caption: string }) {
  const [open, setOpen] = useState<Event | undefined>();
  const columns = useMemo<ListColumn<Event>[]>(
    () => [
      {
        id: 'type',
        header: 'Type',
        sortBy: (event) => event.type,
        cell: (event) => (
          <Text span ff="monospace" fz="sm">
            {event.type}
          </Text>
        ),
      },
      {
        id: 'object',
        header: 'Object',
        cell: (event) => (
          <Text span ff="monospace" fz="sm" data-dynamic>
            {objectId(event) ?? '—'}
          </Text>
        ),
      },
      {
        id: 'created',
        header: 'Created',
        width: 180,
        sortBy: (event) => new Date(event.createdAt),
        cell: (event) => <DateTime value={event.createdAt} />,
      },
      {
        id: 'actions',
        header: 'Actions',
        width: 130,
        align: 'right',
        cell: (event) => (
          <Button
            variant="secondary"
            onClick={() => setOpen(event)}
            aria-label={`Open ${event.type} event ${event.id}`}
          >
            Open
          </Button>
        ),
      },
    ],
    [],
  );
  return (
    <>
      <ListTable
        caption={caption}
        rows={events}
        columns={columns}
        rowKey={(event) => event.id}
        busy={busy}
        rowProps={(event) => ({ 'data-event': event.id, 'data-type': event.type })}
      />
      <Modal
        closeButtonProps={{ 'aria-label': 'Close' }}
        // Gone when closed: no fading copy of the dialog stays over the page it returns to.
        transitionProps={{ duration: 0 }}
        opened={!!open}
        onClose={() => setOpen(undefined)}
        title={open ? `${open.type} event` : 'Event'}
        size="xl"
      >
        {open && <EventDetails event={open} />}
      </Modal>
    </>
  );
}

function objectId(event: Event): string | undefined {
  const object = event.data.object as { id?: string; _id?: string };
  return object.id ?? object._id;
}

/** One event: when, what it carried (as a webhook receives it), and its deliveries. */
function EventDetails({ event }: { event: Event }) {
  const seesDeliveries = useSeesDeliveries();
  return (
    <Stack gap="sm">
      <Text fz="sm" c="var(--muted)" data-dynamic>
        {formatDate(event.createdAt)}
      </Text>
      <Title order={3} fz="md">
        Payload
      </Title>
      {/* Ids and times throughout: it changes every run. */}
      <Code
        block
        aria-label={`Payload of event ${event.id}`}
        tabIndex={0}
        style={{ maxHeight: 360, overflow: 'auto' }}
        data-dynamic
      >
        {JSON.stringify(event, null, 2)}
      </Code>
      {seesDeliveries && (
        <>
          <Title order={3} fz="md">
            Deliveries
          </Title>
          <EventDeliveries eventId={event.id} eventType={event.type} />
        </>
      )}
    </Stack>
  );
}
