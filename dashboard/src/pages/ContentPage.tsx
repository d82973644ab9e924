import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { $api, type Schemas } from '../api/client';
import { ACCESS_LABELS, CONTENT_PAGE_MAX, STATUS_TONES } from '../content';
import { formatDate } from '../money';
import { useSession } from '../session';
import { Badge, DataTable, EmptyState, QueryStatus } from '../ui';
import { ContentResults, ContentSearch, isSearching, NO_CONTENT_SEARCH, searchKey } from './content-search';

type Client = Schemas['ClientResponse'];
type Channel = Schemas['ChannelResponse'];

// A list answers at most this many; the page says when there may be more.
const LIMIT = 100;

/**
 * The content of the platform project: its clients, each client's channels and each channel's
 * top-level content projects (`GET /clients`, `GET /channels/client/{clientId}`,
 * `GET /channels/{channelId}/projects`), or, while a search is on, its results
 * (`GET /projects/search`). A channel's page holds its tree and its collaborators.
 */
export function ContentPage() {
  const session = useSession();
  const [search, setSearch] = useState(NO_CONTENT_SEARCH);
  return (
    <section aria-labelledby="content-heading">
      <h1 id="content-heading">Content</h1>
      <p className="muted">
        The clients of {session.project?.name ?? 'this project'}, their channels and each channel&apos;s top-level
        content projects. Open a channel to change its project tree and its collaborators, and a project to set who may
        see it and to share it.
      </p>
      <ContentSearch state={search} onChange={setSearch} />
      {isSearching(search) ? <ContentResults key={searchKey(search)} state={search} /> : <ContentTree />}
    </section>
  );
}

function ContentTree() {
  const clients = $api.useQuery('get', '/clients', { params: { query: { limit: LIMIT } } });
  const rows = clients.data ?? [];
  return (
    <>
      <QueryStatus query={clients} loading="Loading clients" />
      {clients.data && rows.length === 0 && (
        <EmptyState title="No content yet.">
          Create a client with <span className="mono">POST /clients</span>, then a channel for it with{' '}
          <span className="mono">POST /channels</span> and content projects under the channel: they show here.
        </EmptyState>
      )}
      {rows.map((client) => (
        <ClientSection key={client._id} client={client} />
      ))}
      {rows.length === LIMIT && <p className="muted small">The first {LIMIT} clients are shown.</p>}
    </>
  );
}

function ClientSection({ client }: { client: Client }) {
  const channels = $api.useQuery('get', '/channels/client/{clientId}', {
    params: { path: { clientId: client._id }, query: { limit: LIMIT } },
  });
  const headingId = `client-${client._id}`;
  return (
    <section className="card" aria-labelledby={headingId} data-client={client._id}>
      <h2 id={headingId}>
        {client.name} <span className="muted small">{client.email}</span>
      </h2>
      <QueryStatus query={channels} loading={`Loading the channels of ${client.name}`} />
      {channels.data && channels.data.length === 0 && <p className="muted">No channels yet.</p>}
      {channels.data?.map((channel) => (
        <ChannelProjects key={channel._id} channel={channel} />
      ))}
    </section>
  );
}

function ChannelProjects({ channel }: { channel: Channel }) {
  const projects = $api.useQuery('get', '/channels/{channelId}/projects', {
    params: { path: { channelId: channel._id }, query: { limit: CONTENT_PAGE_MAX } },
  });
  const rows = (projects.data ?? []).filter((project) => project.parentId === null);
  return (
    <div className="channel" data-channel={channel._id}>
      <h3>
        <Link to="/content/channels/$channelId" params={{ channelId: channel._id }}>
          {channel.name} <span className="muted small">@{channel.username}</span>
        </Link>
      </h3>
      <QueryStatus query={projects} loading={`Loading the projects of ${channel.name}`} />
      {projects.data && rows.length === 0 && <p className="muted">No content projects in this channel yet.</p>}
      {rows.length > 0 && (
        <DataTable
          caption={`Content projects of ${channel.name}`}
          columns={['Title', 'Type', 'Status', 'Access', 'Updated']}
        >
          {rows.map((project) => (
            <tr key={project._id} data-content-project={project._id}>
              <th scope="row">
                <Link to="/content/projects/$projectId" params={{ projectId: project._id }}>
                  {project.primaryTitle}
                </Link>
              </th>
              <td>{project.projectTypeId}</td>
              <td>
                <Badge tone={STATUS_TONES[project.status]}>{project.status}</Badge>
              </td>
              <td>{ACCESS_LABELS[project.access]}</td>
              <td>{formatDate(project.updatedAt)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </div>
  );
}
