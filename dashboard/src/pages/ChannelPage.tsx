import { useQueries } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { $api, api, call, idempotencyKey, type Schemas } from '../api/client';
import {
  ACCESS_LABELS,
  buildForest,
  CONTENT_PAGE_MAX,
  descendantCount,
  flatten,
  localToIso,
  MAX_TREE_DEPTH,
  PROJECT_TYPES,
  STATUS_TONES,
  type ContentProject,
  type ProjectType,
  type TreeNode,
} from '../content';
import { useAction } from '../hooks';
import { formatDate } from '../money';
import { useSession } from '../session';
import {
  Badge,
  Button,
  DataTable,
  EmptyState,
  Field,
  fieldError,
  FormActions,
  FormError,
  Options,
  PageLoadError,
  QueryStatus,
  SelectField,
} from '../ui';

type Channel = Schemas['ChannelResponse'];
type Collaborator = Schemas['CollaboratorResponse'];
type ChannelRole = Collaborator['role'];

const CHANNEL_ROLES: readonly ChannelRole[] = ['owner', 'manager', 'editor', 'viewer'];
const ROLE_MEANINGS: Record<ChannelRole, string> = {
  owner: 'everything, and manages the collaborators',
  manager: 'creates, edits and deletes any project, top-level ones too',
  editor: 'creates and edits projects, deletes sub-projects',
  viewer: 'reads only',
};

/** What a change to a channel's projects makes stale: its lists, every project read, and the channel's `projectIds`. */
const PROJECT_CHANGE = { invalidates: ['/channels/{channelId}/projects', '/projects/', '/channels/{id}'] } as const;
const COLLABORATOR_CHANGE = {
  invalidates: ['/channels/{channelId}/collaborators', '/api/v1/accounts/{accountId}/audit-log'],
} as const;

/** A channel: its project tree (create, expand, move, archive, delete) and its collaborators. */
export function ChannelPage({ channelId }: { channelId: string }) {
  const channel = $api.useQuery('get', '/channels/{id}', { params: { path: { id: channelId } } });
  const projects = $api.useQuery('get', '/channels/{channelId}/projects', {
    params: { path: { channelId }, query: { limit: CONTENT_PAGE_MAX } },
  });
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [creatingUnder, setCreatingUnder] = useState<string | null | undefined>();
  const forest = buildForest(projects.data ?? []);
  const name = channel.data?.name ?? 'Channel';

  const toggle = (id: string, open?: boolean) =>
    setExpanded((current) => {
      const next = new Set(current);
      if (open ?? !next.has(id)) next.add(id);
      else next.delete(id);
      return next;
    });

  if (channel.error) {
    return (
      <PageLoadError
        headingId="channel-heading"
        heading="Channel"
        error={channel.error}
        retry={() => void channel.refetch()}
      >
        Back to <Link to="/content">Content</Link>.
      </PageLoadError>
    );
  }

  return (
    <section aria-labelledby="channel-heading">
      <p className="breadcrumb">
        <Link to="/content">Content</Link>
      </p>
      <div className="page-head">
        <h1 id="channel-heading">
          {name} {channel.data && <span className="muted small">@{channel.data.username}</span>}
        </h1>
        {creatingUnder === undefined && <Button onClick={() => setCreatingUnder(null)}>New project</Button>}
      </div>
      <p className="muted">
        The channel&apos;s projects as a tree: a project holds sub-projects, {MAX_TREE_DEPTH} levels at most. Archiving
        a project hides it and everything below it from viewers.
      </p>
      {creatingUnder !== undefined && (
        <NewProjectForm
          key={creatingUnder ?? 'top'}
          channelId={channelId}
          nodes={flatten(forest)}
          parentId={creatingUnder}
          onClose={() => setCreatingUnder(undefined)}
          onCreated={(parentId) => {
            if (parentId) toggle(parentId, true);
            setCreatingUnder(undefined);
          }}
        />
      )}
      <section aria-labelledby="tree-heading">
        <h2 id="tree-heading">Projects</h2>
        <QueryStatus query={projects} loading="Loading the projects" />
        {projects.data && forest.length === 0 && (
          <EmptyState title="No projects in this channel yet.">Create one with New project.</EmptyState>
        )}
        {forest.length > 0 && (
          <ul className="tree" aria-label={`Projects of ${name}`} aria-busy={projects.isFetching || undefined}>
            {forest.map((node) => (
              <TreeItem
                key={node.project._id}
                node={node}
                channel={channel.data}
                allNodes={flatten(forest)}
                expanded={expanded}
                onToggle={toggle}
                onAddChild={(id) => setCreatingUnder(id)}
              />
            ))}
          </ul>
        )}
        {(projects.data?.length ?? 0) === CONTENT_PAGE_MAX && (
          <p className="muted small">The first {CONTENT_PAGE_MAX} projects are shown.</p>
        )}
      </section>
      <CollaboratorsSection channelId={channelId} channelName={name} />
    </section>
  );
}

function NewProjectForm({
  channelId,
  nodes,
  parentId: initialParent,
  onClose,
  onCreated,
}: {
  channelId: string;
  nodes: TreeNode[];
  parentId: string | null;
  onClose: () => void;
  onCreated: (parentId: string | null) => void;
}) {
  const [title, setTitle] = useState('');
  const [type, setType] = useState<ProjectType>(PROJECT_TYPES[0]);
  const [parentId, setParentId] = useState(initialParent ?? '');
  const create = useAction(async () => {
    await call(
      api.POST('/channels/{channelId}/projects', {
        params: { path: { channelId }, header: { 'Idempotency-Key': idempotencyKey() } },
        body: { primaryTitle: title.trim(), projectTypeId: type, parentId: parentId || null },
      }),
    );
    return true;
  }, PROJECT_CHANGE);
  const parent = nodes.find((node) => node.project._id === parentId);
  return (
    <form
      className="card"
      aria-labelledby="new-content-project-heading"
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        void create.run().then((done) => done && onCreated(parentId || null));
      }}
    >
      <h2 id="new-content-project-heading">
        {parent ? `New sub-project of ${parent.project.primaryTitle}` : 'New project'}
      </h2>
      <Field
        label="Title"
        required
        autoFocus
        value={title}
        onChange={(event) => setTitle(event.target.value)}
        error={fieldError(create.error, 'primaryTitle')}
      />
      <SelectField
        label="Type"
        value={type}
        onChange={(event) => setType(event.target.value as ProjectType)}
        error={fieldError(create.error, 'projectTypeId')}
      >
        <Options values={PROJECT_TYPES} />
      </SelectField>
      <SelectField
        label="Parent"
        value={parentId}
        onChange={(event) => setParentId(event.target.value)}
        error={fieldError(create.error, 'parentId')}
        hint="A new project starts as a draft, public once published."
      >
        <option value="">None: a top-level project</option>
        {nodes.map((node) => (
          <option key={node.project._id} value={node.project._id}>
            {'\u2003'.repeat(node.depth)}
            {node.project.primaryTitle}
          </option>
        ))}
      </SelectField>
      <FormError error={create.error} fields={['primaryTitle', 'projectTypeId', 'parentId']} />
      <FormActions busy={create.busy} onCancel={onClose}>
        Create project
      </FormActions>
    </form>
  );
}

type Panel = 'move' | 'delete' | undefined;

function TreeItem({
  node,
  channel,
  allNodes,
  expanded,
  onToggle,
  onAddChild,
}: {
  node: TreeNode;
  channel: Channel | undefined;
  allNodes: TreeNode[];
  expanded: ReadonlySet<string>;
  onToggle: (id: string, open?: boolean) => void;
  onAddChild: (id: string) => void;
}) {
  const { project, children } = node;
  const open = expanded.has(project._id);
  const [panel, setPanel] = useState<Panel>();
  const archived = project.status === 'archived';
  const setStatus = useAction(async () => {
    await call(
      api.PUT('/projects/{projectId}', {
        params: { path: { projectId: project._id } },
        body: { status: archived ? 'draft' : 'archived' },
      }),
    );
    return true;
  }, PROJECT_CHANGE);
  const childrenId = `children-${project._id}`;
  const title = project.primaryTitle;

  return (
    <li data-content-project={project._id} data-status={project.status}>
      <div className="tree-row">
        <Link to="/content/projects/$projectId" params={{ projectId: project._id }} className="tree-title">
          {title}
        </Link>
        <span className="muted small">{project.projectTypeId}</span>
        <Badge tone={STATUS_TONES[project.status]}>{project.status}</Badge>
        <span className="small">{ACCESS_LABELS[project.access]}</span>
        {children.length > 0 && (
          <button
            type="button"
            className="disclosure"
            aria-expanded={open}
            aria-controls={childrenId}
            onClick={() => onToggle(project._id)}
          >
            <span aria-hidden="true">{open ? '▾' : '▸'}</span> {children.length}{' '}
            {children.length === 1 ? 'sub-project' : 'sub-projects'}
            <span className="visually-hidden"> of {title}</span>
          </button>
        )}
        <span className="row-actions">
          {node.depth < MAX_TREE_DEPTH - 1 && (
            <Button
              variant="secondary"
              onClick={() => onAddChild(project._id)}
              aria-label={`Add sub-project to ${title}`}
            >
              Add sub-project
            </Button>
          )}
          <Button
            variant="secondary"
            onClick={() => setPanel(panel === 'move' ? undefined : 'move')}
            aria-expanded={panel === 'move'}
            aria-label={`Move ${title}`}
          >
            Move
          </Button>
          <Button
            variant="secondary"
            busy={setStatus.busy}
            onClick={() => void setStatus.run()}
            aria-label={`${archived ? 'Unarchive' : 'Archive'} ${title}`}
          >
            {archived ? 'Unarchive' : 'Archive'}
          </Button>
          <Button
            variant="danger"
            onClick={() => setPanel(panel === 'delete' ? undefined : 'delete')}
            aria-expanded={panel === 'delete'}
            aria-label={`Delete ${title}`}
          >
            Delete
          </Button>
        </span>
      </div>
      {setStatus.error && (
        <p className="field-error" role="alert">
          {setStatus.error.message}
        </p>
      )}
      {panel === 'move' && channel && (
        <MoveForm node={node} channel={channel} allNodes={allNodes} onDone={() => setPanel(undefined)} />
      )}
      {panel === 'delete' && <DeletePanel node={node} onCancel={() => setPanel(undefined)} />}
      {children.length > 0 && (
        <ul id={childrenId} hidden={!open}>
          {children.map((child) => (
            <TreeItem
              key={child.project._id}
              node={child}
              channel={channel}
              allNodes={allNodes}
              expanded={expanded}
              onToggle={onToggle}
              onAddChild={onAddChild}
            />
          ))}
        </ul>
      )}
    </li>
  );
}

/**
 * Another parent: any project of this channel or, to move across, of the client's other channels. The
 * API decides: a cycle, a tree deeper than four levels or a parent in another channel is refused, and
 * its message shows here.
 */
function MoveForm({
  node,
  channel,
  allNodes,
  onDone,
}: {
  node: TreeNode;
  channel: Channel;
  allNodes: TreeNode[];
  onDone: () => void;
}) {
  const { project } = node;
  const [parentId, setParentId] = useState(project.parentId ?? '');
  const siblings = $api.useQuery('get', '/channels/client/{clientId}', {
    params: { path: { clientId: channel.clientId }, query: { limit: 100 } },
  });
  const others = (siblings.data ?? []).filter((candidate) => candidate._id !== channel._id);
  const otherProjects = useQueries({
    queries: others.map((other) =>
      $api.queryOptions('get', '/channels/{channelId}/projects', {
        params: { path: { channelId: other._id }, query: { limit: CONTENT_PAGE_MAX } },
      }),
    ),
  });
  const move = useAction(async () => {
    await call(
      api.PUT('/projects/{projectId}', {
        params: { path: { projectId: project._id } },
        body: { parentId: parentId || null },
      }),
    );
    return true;
  }, PROJECT_CHANGE);
  return (
    <form
      className="inline-form"
      aria-label={`Move ${project.primaryTitle}`}
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        void move.run().then((done) => done && onDone());
      }}
    >
      <SelectField
        label="New parent"
        value={parentId}
        onChange={(event) => setParentId(event.target.value)}
        error={fieldError(move.error, 'parentId')}
      >
        <option value="">None: top level</option>
        <optgroup label={`In ${channel.name}`}>
          {allNodes
            .filter((candidate) => candidate.project._id !== project._id)
            .map((candidate) => (
              <option key={candidate.project._id} value={candidate.project._id}>
                {'\u2003'.repeat(candidate.depth)}
                {candidate.project.primaryTitle}
              </option>
            ))}
        </optgroup>
        {others.map((other, index) => (
          <optgroup key={other._id} label={`In ${other.name}`}>
            {(otherProjects[index]?.data ?? []).map((candidate: ContentProject) => (
              <option key={candidate._id} value={candidate._id}>
                {candidate.primaryTitle}
              </option>
            ))}
          </optgroup>
        ))}
      </SelectField>
      <FormActions busy={move.busy} onCancel={onDone}>
        Move here
      </FormActions>
      <FormError error={move.error} fields={['parentId']} />
    </form>
  );
}

const subProjects = (count: number) => `${count} ${count === 1 ? 'sub-project' : 'sub-projects'}`;

/** A delete asked once more; a project that holds sub-projects is refused (409) until the delete names them. */
function DeletePanel({ node, onCancel }: { node: TreeNode; onCancel: () => void }) {
  const { project } = node;
  const below = descendantCount(node);
  const remove = useAction(async (cascade: boolean) => {
    await call(
      api.DELETE('/projects/{projectId}', {
        params: { path: { projectId: project._id }, query: cascade ? { cascade: true } : {} },
      }),
    );
    return true;
  }, PROJECT_CHANGE);
  const refusedForChildren = remove.error?.status === 409;
  return (
    <div className="inline-form" role="group" aria-label={`Delete ${project.primaryTitle}`}>
      {refusedForChildren ? (
        <>
          <p role="alert">
            {remove.error?.message}{' '}
            {below > 0
              ? `It holds ${subProjects(below)}: deleting it deletes them too, with their assets and stored files, and cannot be undone.`
              : 'Deleting it deletes its assets and their stored files too, and cannot be undone.'}
          </p>
          <div className="actions">
            <Button variant="danger" busy={remove.busy} onClick={() => void remove.run(true)}>
              {below > 0 ? `Delete with its ${subProjects(below)}` : 'Delete with its assets'}
            </Button>
            <Button variant="secondary" onClick={onCancel}>
              Cancel
            </Button>
          </div>
        </>
      ) : (
        <>
          <p>Delete {project.primaryTitle} and its assets? This cannot be undone.</p>
          <div className="actions">
            <Button variant="danger" busy={remove.busy} onClick={() => void remove.run(false)}>
              Delete {project.primaryTitle}
            </Button>
            <Button variant="secondary" onClick={onCancel}>
              Cancel
            </Button>
          </div>
          <FormError error={remove.error} />
        </>
      )}
    </div>
  );
}

/** The channel's collaborators: members of the account with a role in this channel, until an optional end. */
function CollaboratorsSection({ channelId, channelName }: { channelId: string; channelName: string }) {
  const session = useSession();
  const accountId = session.account?.id ?? '';
  const collaborators = $api.useQuery('get', '/channels/{channelId}/collaborators', {
    params: { path: { channelId }, query: { limit: CONTENT_PAGE_MAX } },
  });
  const members = $api.useQuery(
    'get',
    '/api/v1/accounts/{accountId}/members',
    { params: { path: { accountId } } },
    { enabled: Boolean(accountId) },
  );
  const memberList = members.data?.data ?? [];
  const rows = collaborators.data ?? [];
  return (
    <section aria-labelledby="collaborators-heading">
      <h2 id="collaborators-heading">Collaborators</h2>
      <p className="muted">
        Members of the account with a role in {channelName}:{' '}
        {CHANNEL_ROLES.map((role) => `${role}: ${ROLE_MEANINGS[role]}`).join('; ')}. Platform admins may do everything.
      </p>
      <AddCollaboratorForm channelId={channelId} members={memberList} />
      <QueryStatus query={collaborators} loading="Loading the collaborators" />
      {collaborators.data && rows.length === 0 && <p className="muted">No collaborators yet.</p>}
      {rows.length > 0 && (
        <DataTable
          busy={collaborators.isFetching}
          caption={`Collaborators of ${channelName}`}
          columns={['Member', 'Role', 'Ends', 'Actions']}
        >
          {rows.map((collaborator) => {
            const member = memberList.find((candidate) => candidate.userId === collaborator.userId);
            return (
              <CollaboratorRow
                key={collaborator._id}
                channelId={channelId}
                collaborator={collaborator}
                name={member ? `${member.firstName} ${member.lastName}` : undefined}
                // The email names the member in the row's controls: two members may share a name.
                label={member?.email ?? collaborator.userId}
              />
            );
          })}
        </DataTable>
      )}
    </section>
  );
}

function AddCollaboratorForm({ channelId, members }: { channelId: string; members: Schemas['MemberView'][] }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<ChannelRole>('editor');
  const [until, setUntil] = useState('');
  const [unknown, setUnknown] = useState(false);
  const add = useAction(async (userId: string) => {
    await call(
      api.POST('/channels/{channelId}/collaborators', {
        params: { path: { channelId }, header: { 'Idempotency-Key': idempotencyKey() } },
        body: { userId, role, expiresAt: localToIso(until) ?? null },
      }),
    );
    setEmail('');
    setUntil('');
    return true;
  }, COLLABORATOR_CHANGE);
  return (
    <form
      className="card"
      aria-labelledby="add-collaborator-heading"
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        const member = members.find((candidate) => candidate.email.toLowerCase() === email.trim().toLowerCase());
        setUnknown(!member);
        if (member) void add.run(member.userId);
      }}
    >
      <h3 id="add-collaborator-heading">Add a collaborator</h3>
      <Field
        label="Member's email"
        type="email"
        required
        value={email}
        onChange={(event) => setEmail(event.target.value)}
        error={
          unknown
            ? 'No member of the account has this email: invite them on the Team page first.'
            : fieldError(add.error, 'userId')
        }
      />
      <SelectField
        label="Channel role"
        value={role}
        onChange={(event) => setRole(event.target.value as ChannelRole)}
        error={fieldError(add.error, 'role')}
      >
        <Options values={CHANNEL_ROLES} />
      </SelectField>
      <Field
        label="Ends (optional)"
        type="datetime-local"
        value={until}
        onChange={(event) => setUntil(event.target.value)}
        error={fieldError(add.error, 'expiresAt')}
      />
      <FormError error={add.error} fields={['userId', 'role', 'expiresAt']} />
      <Button type="submit" busy={add.busy}>
        Add collaborator
      </Button>
    </form>
  );
}

function CollaboratorRow({
  channelId,
  collaborator,
  name,
  label,
}: {
  channelId: string;
  collaborator: Collaborator;
  name?: string;
  label: string;
}) {
  const [role, setRole] = useState<ChannelRole>(collaborator.role);
  const path = { channelId, userId: collaborator.userId };
  const change = useAction(async () => {
    await call(api.PATCH('/channels/{channelId}/collaborators/{userId}', { params: { path }, body: { role } }));
    return true;
  }, COLLABORATOR_CHANGE);
  const remove = useAction(async () => {
    await call(api.DELETE('/channels/{channelId}/collaborators/{userId}', { params: { path } }));
    return true;
  }, COLLABORATOR_CHANGE);
  const ended = collaborator.expiresAt !== null && new Date(collaborator.expiresAt).getTime() <= Date.now();
  const error = change.error ?? remove.error;
  return (
    <tr data-collaborator={collaborator.userId}>
      <th scope="row">
        {name ? (
          <>
            {name} <span className="muted small">{label}</span>
          </>
        ) : (
          <span className="mono">{label}</span>
        )}
      </th>
      <td>{collaborator.role}</td>
      <td>
        {ended ? (
          <Badge tone="bad">Ended</Badge>
        ) : collaborator.expiresAt ? (
          formatDate(collaborator.expiresAt)
        ) : (
          'never'
        )}
      </td>
      <td>
        <div className="row-actions">
          <SelectField
            label={`New role for ${label}`}
            value={role}
            onChange={(event) => setRole(event.target.value as ChannelRole)}
          >
            <Options values={CHANNEL_ROLES} />
          </SelectField>
          <Button
            variant="secondary"
            busy={change.busy}
            disabled={role === collaborator.role}
            onClick={() => void change.run()}
            aria-label={`Change role of ${label}`}
          >
            Change role
          </Button>
          <Button variant="danger" busy={remove.busy} onClick={() => void remove.run()} aria-label={`Remove ${label}`}>
            Remove
          </Button>
        </div>
        {error && (
          <p className="field-error" role="alert">
            {error.message}
          </p>
        )}
      </td>
    </tr>
  );
}
