import { ActionIcon, Badge, Button, Group, Menu, Paper, Stack, Text, Title } from '@mantine/core';
import { useQueries, type UseQueryResult } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useMemo, useState } from 'react';
import { $api, type ErrorBody, type Schemas } from '../api/client';
import {
  ACCESS_LABELS,
  CONTENT_PAGE_MAX,
  STATUS_COLORS,
  STATUS_LABELS,
  typeLabel,
  type ContentProject,
} from '../content';
import { DateTime } from '../components/date-time';
import { ListTable, type ListColumn } from '../components/list-table';
import { useSession } from '../session';
import { EmptyState, QueryStatus } from '../ui';
import { ChannelModal, ClientModal, CONTRAST_VARS, ProjectThumb, DIALOG_ROOT } from './content-forms';
import { ContentResults, ContentSearch, isSearching, NO_CONTENT_SEARCH, searchKey } from './content-search';

type Client = Schemas['ClientResponse'];
type Channel = Schemas['ChannelResponse'];

// A list answers at most this many; the page says when there may be more.
const LIMIT = 100;
const CONTENT_ROWS_PER_PAGE = 25;

type Dialog =
  | { kind: 'new-client' }
  | { kind: 'edit-client'; client: Client }
  | { kind: 'new-channel'; client: Client }
  | { kind: 'edit-channel'; client: Client; channel: Channel }
  | undefined;

/**
 * The content of the platform project, as YouTube Studio lays out a channel's content: one table of
 * every content project (a thumbnail, the title and where it sits, type, status, access, last change),
 * sortable by column, filtered by the search's chips; under it the clients and their channels, made
 * and edited here. A channel's page holds its tree and its collaborators.
 */
export function ContentPage() {
  const session = useSession();
  const [search, setSearch] = useState(NO_CONTENT_SEARCH);
  const [dialog, setDialog] = useState<Dialog>();
  const close = () => setDialog(undefined);
  return (
    <section aria-labelledby="content-heading" style={CONTRAST_VARS} {...DIALOG_ROOT}>
      <Group justify="space-between" align="flex-start" mb="xs">
        <Title order={1} id="content-heading">
          Content
        </Title>
        <Button onClick={() => setDialog({ kind: 'new-client' })}>New client</Button>
      </Group>
      <Text c="dimmed" mb="md">
        The content projects of {session.project?.name ?? 'this project'}, in the channels of its clients. Open a
        channel to change its project tree and its collaborators, and a project to set who may see it and to share it.
      </Text>
      <ContentSearch state={search} onChange={setSearch} />
      {isSearching(search) ? (
        <ContentResults key={searchKey(search)} state={search} />
      ) : (
        <ContentLibrary onDialog={setDialog} />
      )}
      {dialog?.kind === 'new-client' && <ClientModal onClose={close} />}
      {dialog?.kind === 'edit-client' && <ClientModal client={dialog.client} onClose={close} />}
      {dialog?.kind === 'new-channel' && <ChannelModal client={dialog.client} onClose={close} />}
      {dialog?.kind === 'edit-channel' && (
        <ChannelModal client={dialog.client} channel={dialog.channel} onClose={close} />
      )}
    </section>
  );
}

/** The clients, their channels and every channel's projects: the reads the table and the client cards share. */
function ContentLibrary({ onDialog }: { onDialog: (dialog: Dialog) => void }) {
  const clients = $api.useQuery('get', '/clients', { params: { query: { limit: LIMIT } } });
  const clientRows = useMemo(() => clients.data ?? [], [clients.data]);
  const channelQueries = useQueries({
    queries: clientRows.map((client) =>
      $api.queryOptions('get', '/channels/client/{clientId}', {
        params: { path: { clientId: client._id }, query: { limit: LIMIT } },
      }),
    ),
  });
  const channels = channelQueries.flatMap((query) => query.data ?? []);
  const projectQueries = useQueries({
    queries: channels.map((channel) =>
      $api.queryOptions('get', '/channels/{channelId}/projects', {
        params: { path: { channelId: channel._id }, query: { limit: CONTENT_PAGE_MAX } },
      }),
    ),
  });
  const projects = projectQueries.flatMap((query) => query.data ?? []);
  const loaded = clients.data !== undefined && [...channelQueries, ...projectQueries].every((query) => query.data);

  return (
    <>
      <QueryStatus query={clients} loading="Loading clients" />
      {clients.data && clientRows.length === 0 && (
        <EmptyState title="No content yet.">
          Create a client with New client, then a channel for it: its content projects show here.
        </EmptyState>
      )}
      {clientRows.length > 0 && (
        <section aria-labelledby="library-heading">
          <Title order={2} id="library-heading" mt="lg" mb="sm">
            Content projects
          </Title>
          <ContentTable
            projects={projects}
            channels={channels}
            loaded={loaded}
            busy={projectQueries.some((query) => query.isFetching)}
          />
        </section>
      )}
      {clientRows.length > 0 && (
        <section aria-labelledby="clients-heading">
          <Title order={2} id="clients-heading" mt="xl" mb="sm">
            Clients and channels
          </Title>
          <Stack gap="md">
            {clientRows.map((client, index) => (
              <ClientCard
                key={client._id}
                client={client}
                channels={channelQueries[index]}
                projects={projects}
                onDialog={onDialog}
              />
            ))}
          </Stack>
          {clientRows.length === LIMIT && (
            <Text c="dimmed" fz="sm" mt="sm">
              The first {LIMIT} clients are shown.
            </Text>
          )}
        </section>
      )}
    </>
  );
}

/** Every content project in one table: sorted by any column but the thumbnail, paged 25 at a time. */
function ContentTable({
  projects,
  channels,
  loaded,
  busy,
}: {
  projects: ContentProject[];
  channels: Channel[];
  loaded: boolean;
  busy: boolean;
}) {
  const channelNames = new Map(channels.map((channel) => [channel._id, channel.name]));
  const titles = new Map(projects.map((project) => [project._id, project.primaryTitle]));
  const placeOf = (project: ContentProject) =>
    [channelNames.get(project.channelId), project.parentId ? titles.get(project.parentId) : undefined]
      .filter(Boolean)
      .join(' › ');
  const columns: ListColumn<ContentProject>[] = [
    {
      id: 'title',
      header: 'Project',
      sortBy: (project) => project.primaryTitle,
      cell: (project) => (
        <Group gap="sm" wrap="nowrap">
          <ProjectThumb type={typeLabel(project.projectTypeId)} />
          <Stack gap={2}>
            <Link to="/content/projects/$projectId" params={{ projectId: project._id }} style={{ fontWeight: 500 }}>
              {project.primaryTitle}
            </Link>
            <Text fz="xs" c="dimmed">
              {placeOf(project)}
            </Text>
          </Stack>
        </Group>
      ),
    },
    {
      id: 'type',
      header: 'Type',
      width: 110,
      sortBy: (project) => typeLabel(project.projectTypeId),
      cell: (project) => typeLabel(project.projectTypeId),
    },
    {
      id: 'status',
      header: 'Status',
      width: 120,
      sortBy: (project) => STATUS_LABELS[project.status],
      cell: (project) => (
        <Badge variant="light" color={STATUS_COLORS[project.status]}>
          {STATUS_LABELS[project.status]}
        </Badge>
      ),
    },
    {
      id: 'access',
      header: 'Access',
      width: 120,
      sortBy: (project) => ACCESS_LABELS[project.access],
      cell: (project) => ACCESS_LABELS[project.access],
    },
    {
      id: 'updated',
      header: 'Updated',
      width: 170,
      sortBy: (project) => new Date(project.updatedAt),
      cell: (project) => <DateTime value={project.updatedAt} />,
    },
  ];
  if (!loaded && projects.length === 0) return null;
  return (
    <ListTable
      caption="Content projects"
      rows={projects}
      columns={columns}
      rowKey={(project) => project._id}
      busy={busy}
      pageSize={CONTENT_ROWS_PER_PAGE}
      initialSort={{ id: 'updated', desc: true }}
      rowProps={(project) => ({ 'data-content-project': project._id })}
      empty={
        <EmptyState title="No content projects yet.">Open a channel below and create its first project.</EmptyState>
      }
    />
  );
}

/** A client: its contact, its channels (a table of their own) and what may be done to either. */
function ClientCard({
  client,
  channels,
  projects,
  onDialog,
}: {
  client: Client;
  channels: UseQueryResult<Channel[], ErrorBody> | undefined;
  projects: ContentProject[];
  onDialog: (dialog: Dialog) => void;
}) {
  const headingId = `client-${client._id}`;
  const rows = channels?.data ?? [];
  const counts = new Map<string, number>();
  for (const project of projects) counts.set(project.channelId, (counts.get(project.channelId) ?? 0) + 1);
  return (
    <Paper withBorder p="md" component="section" aria-labelledby={headingId} data-client={client._id}>
      <Group justify="space-between" align="flex-start" mb="sm">
        <div>
          <Title order={3} id={headingId}>
            {client.name}
          </Title>
          <Text fz="sm" c="dimmed" data-dynamic>
            {[client.email, client.phone].filter(Boolean).join(' · ')}
          </Text>
        </div>
        <Group gap="xs">
          <Button variant="default" onClick={() => onDialog({ kind: 'edit-client', client })}>
            Edit client
          </Button>
          <Button variant="default" onClick={() => onDialog({ kind: 'new-channel', client })}>
            New channel
          </Button>
        </Group>
      </Group>
      {channels && <QueryStatus query={channels} loading={`Loading the channels of ${client.name}`} />}
      {channels?.data && (
        <ListTable
          caption={`Channels of ${client.name}`}
          rows={rows}
          rowKey={(channel) => channel._id}
          busy={channels.isFetching}
          rowProps={(channel) => ({ 'data-channel': channel._id })}
          empty={
            <Text c="dimmed" fz="sm">
              No channels yet: create one with New channel.
            </Text>
          }
          columns={[
            {
              id: 'name',
              header: 'Channel',
              sortBy: (channel) => channel.name,
              cell: (channel) => (
                <Stack gap={0}>
                  <Link
                    to="/content/channels/$channelId"
                    params={{ channelId: channel._id }}
                    style={{ fontWeight: 500 }}
                  >
                    {channel.name}
                  </Link>
                  <Text fz="xs" c="dimmed" data-dynamic>
                    @{channel.username}
                  </Text>
                </Stack>
              ),
            },
            {
              id: 'role',
              header: "Owner's role",
              width: 140,
              sortBy: (channel) => channel.role,
              cell: (channel) => channel.role,
            },
            {
              id: 'projects',
              header: 'Projects',
              width: 100,
              align: 'right',
              sortBy: (channel) => counts.get(channel._id) ?? 0,
              cell: (channel) => counts.get(channel._id) ?? 0,
            },
            {
              id: 'created',
              header: 'Created',
              width: 170,
              sortBy: (channel) => new Date(channel.createdAt),
              cell: (channel) => <DateTime value={channel.createdAt} />,
            },
            {
              id: 'actions',
              header: 'Actions',
              hiddenHeader: true,
              width: 64,
              align: 'right',
              cell: (channel) => <ChannelMenu client={client} channel={channel} onDialog={onDialog} />,
            },
          ]}
        />
      )}
    </Paper>
  );
}

function ChannelMenu({
  client,
  channel,
  onDialog,
}: {
  client: Client;
  channel: Channel;
  onDialog: (dialog: Dialog) => void;
}) {
  const navigate = useNavigate();
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <ActionIcon variant="subtle" color="gray" aria-label={`Actions for ${channel.name}`}>
          <span aria-hidden="true">⋯</span>
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item
          onClick={() => void navigate({ to: '/content/channels/$channelId', params: { channelId: channel._id } })}
        >
          Open
        </Menu.Item>
        <Menu.Item onClick={() => onDialog({ kind: 'edit-channel', client, channel })}>Edit</Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
