import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Group,
  Menu,
  Modal,
  NativeSelect,
  Stack,
  Text,
  TextInput,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { useQueries } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
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
  STATUS_COLORS,
  STATUS_LABELS,
  subtreeHeight,
  subtreeIds,
  typeLabel,
  type ContentProject,
  type ProjectType,
  type TreeNode,
} from '../content';
import { DateTime } from '../components/date-time';
import { ListTable, type ListColumn } from '../components/list-table';
import { useAction } from '../hooks';
import { useSession } from '../session';
import { EmptyState, Field, fieldError, FormError, Options, PageLoadError, QueryStatus, SelectField } from '../ui';
import {
  ChannelModal,
  CONTRAST_VARS,
  DIALOG_PROPS,
  fieldSentence,
  FormModal,
  RefusalAlert,
  sentence,
  DIALOG_ROOT,
} from './content-forms';

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

/** The dialog open over the tree, and the project it acts on. */
type Dialog =
  | { kind: 'new'; parentId: string | null }
  | { kind: 'rename' | 'move' | 'delete'; node: TreeNode }
  | { kind: 'edit-channel' }
  | undefined;

const subProjects = (count: number) => `${count} ${count === 1 ? 'sub-project' : 'sub-projects'}`;

/**
 * A channel: its project tree as a table of expandable rows (each row's actions in its menu: open,
 * rename, add a sub-project, move, archive, delete, each in a dialog) and its collaborators.
 */
export function ChannelPage({ channelId }: { channelId: string }) {
  const channel = $api.useQuery('get', '/channels/{id}', { params: { path: { id: channelId } } });
  const projects = $api.useQuery('get', '/channels/{channelId}/projects', {
    params: { path: { channelId }, query: { limit: CONTENT_PAGE_MAX } },
  });
  // Collapsed rather than expanded: a tree opens whole, and a new sub-project shows where it went.
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [dialog, setDialog] = useState<Dialog>();
  const forest = buildForest(projects.data ?? []);
  const all = flatten(forest);
  const name = channel.data?.name ?? 'Channel';
  const close = () => setDialog(undefined);

  const toggle = (id: string) =>
    setCollapsed((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  // The rows on show: a collapsed project's subtree is left out.
  const visible: TreeNode[] = [];
  const walk = (nodes: TreeNode[]) => {
    for (const node of nodes) {
      visible.push(node);
      if (!collapsed.has(node.project._id)) walk(node.children);
    }
  };
  walk(forest);

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

  const columns: ListColumn<TreeNode>[] = [
    {
      id: 'title',
      header: 'Title',
      cell: (node) => (
        <TreeTitle node={node} open={!collapsed.has(node.project._id)} onToggle={() => toggle(node.project._id)} />
      ),
    },
    { id: 'type', header: 'Type', width: 110, cell: (node) => typeLabel(node.project.projectTypeId) },
    {
      id: 'status',
      header: 'Status',
      width: 120,
      cell: (node) => (
        <Badge variant="light" color={STATUS_COLORS[node.project.status]}>
          {STATUS_LABELS[node.project.status]}
        </Badge>
      ),
    },
    { id: 'access', header: 'Access', width: 120, cell: (node) => ACCESS_LABELS[node.project.access] },
    {
      id: 'updated',
      header: 'Updated',
      width: 170,
      cell: (node) => <DateTime value={node.project.updatedAt} />,
    },
    {
      id: 'actions',
      header: 'Actions',
      hiddenHeader: true,
      width: 64,
      align: 'right',
      cell: (node) => <RowMenu node={node} onDialog={setDialog} />,
    },
  ];

  return (
    <section aria-labelledby="channel-heading" style={CONTRAST_VARS} {...DIALOG_ROOT}>
      <p className="breadcrumb">
        <Link to="/content">Content</Link>
      </p>
      <Group justify="space-between" align="flex-start" mb="xs">
        <Title order={1} id="channel-heading">
          {name}{' '}
          {channel.data && (
            <Text span c="dimmed" fz="md" data-dynamic>
              @{channel.data.username}
            </Text>
          )}
        </Title>
        <Group gap="xs">
          {channel.data && (
            <Button variant="default" onClick={() => setDialog({ kind: 'edit-channel' })}>
              Edit channel
            </Button>
          )}
          <Button onClick={() => setDialog({ kind: 'new', parentId: null })}>New project</Button>
        </Group>
      </Group>
      <Text c="dimmed" mb="md">
        The channel&apos;s projects as a tree: a project holds sub-projects, {MAX_TREE_DEPTH} levels at most. Archiving
        a project hides it and everything below it from viewers.
      </Text>
      <section aria-labelledby="tree-heading">
        <Title order={2} id="tree-heading" mb="sm">
          Projects
        </Title>
        <QueryStatus query={projects} loading="Loading the projects" />
        {projects.data && (
          <ListTable
            caption={`Projects of ${name}`}
            rows={visible}
            columns={columns}
            rowKey={(node) => node.project._id}
            busy={projects.isFetching}
            empty={<EmptyState title="No projects in this channel yet.">Create one with New project.</EmptyState>}
            rowProps={(node) => ({
              'data-content-project': node.project._id,
              'data-status': node.project.status,
              'data-depth': String(node.depth),
            })}
          />
        )}
        {(projects.data?.length ?? 0) === CONTENT_PAGE_MAX && (
          <Text c="dimmed" fz="sm">
            The first {CONTENT_PAGE_MAX} projects are shown.
          </Text>
        )}
      </section>
      {dialog?.kind === 'new' && (
        <NewProjectModal
          channelId={channelId}
          nodes={all}
          parentId={dialog.parentId}
          onClose={close}
          onCreated={(parentId) => {
            if (parentId) setCollapsed((current) => new Set([...current].filter((id) => id !== parentId)));
            close();
          }}
        />
      )}
      {dialog?.kind === 'rename' && <RenameModal node={dialog.node} onClose={close} />}
      {dialog?.kind === 'move' && channel.data && (
        <MoveModal node={dialog.node} channel={channel.data} allNodes={all} onClose={close} />
      )}
      {dialog?.kind === 'delete' && <DeleteModal node={dialog.node} onClose={close} />}
      {dialog?.kind === 'edit-channel' && channel.data && (
        <ChannelModal client={{ _id: channel.data.clientId, name: '' }} channel={channel.data} onClose={close} />
      )}
      <CollaboratorsSection channelId={channelId} channelName={name} />
    </section>
  );
}

/** A row's title: indented by its depth, its disclosure when it holds sub-projects, and its link. */
function TreeTitle({ node, open, onToggle }: { node: TreeNode; open: boolean; onToggle: () => void }) {
  const { project, children } = node;
  return (
    <Group gap={6} wrap="nowrap" pl={node.depth * 24}>
      {children.length > 0 ? (
        <UnstyledButton
          onClick={onToggle}
          aria-expanded={open}
          aria-label={`${subProjects(children.length)} of ${project.primaryTitle}`}
          w={22}
          ta="center"
          style={{ flex: 'none' }}
        >
          <span aria-hidden="true">{open ? '▾' : '▸'}</span>
        </UnstyledButton>
      ) : (
        <span style={{ width: 22, flex: 'none' }} aria-hidden="true" />
      )}
      <Stack gap={0}>
        <Link to="/content/projects/$projectId" params={{ projectId: project._id }} style={{ fontWeight: 500 }}>
          {project.primaryTitle}
        </Link>
        {children.length > 0 && (
          <Text fz="xs" c="dimmed">
            {subProjects(children.length)}
          </Text>
        )}
      </Stack>
    </Group>
  );
}

/** A row's actions, in a menu named after its project. Archiving is one click; the rest open a dialog. */
function RowMenu({ node, onDialog }: { node: TreeNode; onDialog: (dialog: Dialog) => void }) {
  const navigate = useNavigate();
  const { project } = node;
  const title = project.primaryTitle;
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
  return (
    <Group gap={4} justify="flex-end" wrap="nowrap">
      {setStatus.error && (
        <Text c="var(--mantine-color-error)" fz="xs" role="alert">
          {sentence(setStatus.error.message)}
        </Text>
      )}
      <Menu position="bottom-end" withinPortal>
        <Menu.Target>
          <ActionIcon variant="subtle" color="gray" aria-label={`Actions for ${title}`} loading={setStatus.busy}>
            <span aria-hidden="true">⋯</span>
          </ActionIcon>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Item
            onClick={() => void navigate({ to: '/content/projects/$projectId', params: { projectId: project._id } })}
          >
            Open
          </Menu.Item>
          <Menu.Item onClick={() => onDialog({ kind: 'rename', node })}>Rename</Menu.Item>
          {node.depth < MAX_TREE_DEPTH - 1 && (
            <Menu.Item onClick={() => onDialog({ kind: 'new', parentId: project._id })}>Add sub-project</Menu.Item>
          )}
          <Menu.Item onClick={() => onDialog({ kind: 'move', node })}>Move</Menu.Item>
          <Menu.Item onClick={() => void setStatus.run()}>{archived ? 'Unarchive' : 'Archive'}</Menu.Item>
          <Menu.Divider />
          <Menu.Item onClick={() => onDialog({ kind: 'delete', node })}>Delete</Menu.Item>
        </Menu.Dropdown>
      </Menu>
    </Group>
  );
}

const PROJECT_FIELDS = ['primaryTitle', 'projectTypeId', 'parentId'] as const;

function NewProjectModal({
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
  const initial = nodes.find((node) => node.project._id === initialParent);
  return (
    <FormModal
      opened
      onClose={onClose}
      title={initial ? `New sub-project of ${initial.project.primaryTitle}` : 'New project'}
      submit="Create project"
      busy={create.busy}
      onSubmit={() => void create.run().then((done) => done && onCreated(parentId || null))}
    >
      <TextInput
        label="Title"
        required
        data-autofocus
        value={title}
        onChange={(event) => setTitle(event.currentTarget.value)}
        error={fieldSentence(create.error, 'primaryTitle', 'Title')}
      />
      <NativeSelect
        label="Type"
        value={type}
        onChange={(event) => setType(event.currentTarget.value as ProjectType)}
        error={fieldSentence(create.error, 'projectTypeId', 'Type')}
        data={PROJECT_TYPES.map((value) => ({ value, label: typeLabel(value) }))}
      />
      <NativeSelect
        label="Parent"
        value={parentId}
        onChange={(event) => setParentId(event.currentTarget.value)}
        error={fieldSentence(create.error, 'parentId', 'Parent')}
        description="A new project starts as a draft, public once published."
        data={[
          { value: '', label: 'None: a top-level project' },
          ...nodes
            .filter((node) => node.depth < MAX_TREE_DEPTH - 1)
            .map((node) => ({
              value: node.project._id,
              label: `${'\u2003'.repeat(node.depth)}${node.project.primaryTitle}`,
            })),
        ]}
      />
      <RefusalAlert error={create.error} fields={PROJECT_FIELDS} />
    </FormModal>
  );
}

function RenameModal({ node, onClose }: { node: TreeNode; onClose: () => void }) {
  const { project } = node;
  const [title, setTitle] = useState(project.primaryTitle);
  const rename = useAction(async () => {
    await call(
      api.PUT('/projects/{projectId}', {
        params: { path: { projectId: project._id } },
        body: { primaryTitle: title.trim() },
      }),
    );
    onClose();
    return true;
  }, PROJECT_CHANGE);
  return (
    <FormModal
      opened
      onClose={onClose}
      title={`Rename ${project.primaryTitle}`}
      submit="Rename"
      busy={rename.busy}
      onSubmit={() => void rename.run()}
    >
      <TextInput
        label="Title"
        required
        data-autofocus
        value={title}
        onChange={(event) => setTitle(event.currentTarget.value)}
        error={fieldSentence(rename.error, 'primaryTitle', 'Title')}
      />
      <RefusalAlert error={rename.error} fields={['primaryTitle']} />
    </FormModal>
  );
}

/**
 * Another parent: a project of this channel that is not the project itself nor below it, and where
 * the project's levels still fit in {@link MAX_TREE_DEPTH}; or, to move across, a project of the
 * client's other channels. The service decides the rest (a project with sub-projects stays in its
 * channel) and its refusal shows here as a sentence.
 */
function MoveModal({
  node,
  channel,
  allNodes,
  onClose,
}: {
  node: TreeNode;
  channel: Channel;
  allNodes: TreeNode[];
  onClose: () => void;
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
    onClose();
    return true;
  }, PROJECT_CHANGE);
  const inside = subtreeIds(node);
  const height = subtreeHeight(node);
  const here = allNodes.filter(
    (candidate) => !inside.has(candidate.project._id) && candidate.depth + 1 + height <= MAX_TREE_DEPTH,
  );
  const options = [
    { value: '', label: 'None: top level' },
    {
      group: `In ${channel.name}`,
      items: here.map((candidate) => ({
        value: candidate.project._id,
        label: `${'\u2003'.repeat(candidate.depth)}${candidate.project.primaryTitle}`,
      })),
    },
    ...others.map((other, index) => ({
      group: `In ${other.name}`,
      items: (otherProjects[index]?.data ?? []).map((candidate: ContentProject) => ({
        value: candidate._id,
        label: candidate.primaryTitle,
      })),
    })),
  ].filter((option) => !('items' in option) || option.items.length > 0);
  return (
    <FormModal
      opened
      onClose={onClose}
      title={`Move ${project.primaryTitle}`}
      submit="Move here"
      busy={move.busy}
      onSubmit={() => void move.run()}
    >
      <NativeSelect
        label="New parent"
        data-autofocus
        value={parentId}
        onChange={(event) => setParentId(event.currentTarget.value)}
        error={fieldSentence(move.error, 'parentId', 'New parent')}
        description={`Its own sub-projects are not offered, nor a place where its ${height} ${height === 1 ? 'level' : 'levels'} would pass ${MAX_TREE_DEPTH}.`}
        data={options}
      />
      <RefusalAlert error={move.error} fields={['parentId']} />
    </FormModal>
  );
}

/**
 * A delete asked once more. A project that holds anything is refused (409) until the person says
 * to delete everything in it: the dialog then says what goes, in its own words.
 */
function DeleteModal({ node, onClose }: { node: TreeNode; onClose: () => void }) {
  const { project } = node;
  const title = project.primaryTitle;
  const below = descendantCount(node);
  const remove = useAction(async (cascade: boolean) => {
    await call(
      api.DELETE('/projects/{projectId}', {
        params: { path: { projectId: project._id }, query: cascade ? { cascade: true } : {} },
      }),
    );
    onClose();
    return true;
  }, PROJECT_CHANGE);
  const holdsSomething = remove.error?.status === 409;
  return (
    <Modal opened onClose={onClose} title={`Delete ${title}`} centered {...DIALOG_PROPS}>
      <Stack gap="sm" role="group" aria-label={`Delete ${title}`}>
        {holdsSomething ? (
          <Alert color="red" variant="light" role="alert" title={`${title} is not empty`}>
            {below > 0
              ? `${title} holds ${subProjects(below)}. Deleting it deletes them too, with their assets and stored files, and cannot be undone.`
              : `${title} holds assets. Deleting it deletes them too, with their stored files, and cannot be undone.`}
          </Alert>
        ) : (
          <Text>Delete {title} and its assets? This cannot be undone.</Text>
        )}
        {remove.error && !holdsSomething && <RefusalAlert error={remove.error} />}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          {holdsSomething ? (
            <Button color="red" loading={remove.busy} onClick={() => void remove.run(true)}>
              Delete with everything in it
            </Button>
          ) : (
            <Button color="red" loading={remove.busy} onClick={() => void remove.run(false)} data-autofocus>
              Delete {title}
            </Button>
          )}
        </Group>
      </Stack>
    </Modal>
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
  const memberOf = (collaborator: Collaborator) =>
    memberList.find((candidate) => candidate.userId === collaborator.userId);
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
      {collaborators.data && rows.length > 0 && (
        <ListTable
          caption={`Collaborators of ${channelName}`}
          rows={rows}
          rowKey={(collaborator) => collaborator._id}
          busy={collaborators.isFetching}
          rowProps={(collaborator) => ({ 'data-collaborator': collaborator.userId })}
          columns={[
            {
              id: 'member',
              header: 'Member',
              sortBy: (collaborator) => memberOf(collaborator)?.email ?? collaborator.userId,
              cell: (collaborator) => {
                const member = memberOf(collaborator);
                return member ? (
                  <Stack gap={0}>
                    <Text fz="sm">
                      {member.firstName} {member.lastName}
                    </Text>
                    <Text fz="xs" c="dimmed" data-dynamic>
                      {member.email}
                    </Text>
                  </Stack>
                ) : (
                  <Text fz="sm" ff="monospace">
                    {collaborator.userId}
                  </Text>
                );
              },
            },
            {
              id: 'role',
              header: 'Role',
              width: 110,
              sortBy: (collaborator) => CHANNEL_ROLES.indexOf(collaborator.role),
              cell: (collaborator) => collaborator.role,
            },
            {
              id: 'ends',
              header: 'Ends',
              width: 170,
              sortBy: (collaborator) => collaborator.expiresAt ?? undefined,
              cell: (collaborator) =>
                collaborator.expiresAt !== null && new Date(collaborator.expiresAt).getTime() <= Date.now() ? (
                  <Badge color="red" variant="light">
                    Ended
                  </Badge>
                ) : collaborator.expiresAt ? (
                  <DateTime value={collaborator.expiresAt} />
                ) : (
                  'never'
                ),
            },
            {
              id: 'actions',
              header: 'Actions',
              width: 330,
              cell: (collaborator) => (
                <CollaboratorActions
                  channelId={channelId}
                  collaborator={collaborator}
                  // The email names the member in the row's controls: two members may share a name.
                  label={memberOf(collaborator)?.email ?? collaborator.userId}
                />
              ),
            },
          ]}
        />
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
      <Button type="submit" loading={add.busy} mt="sm">
        Add collaborator
      </Button>
    </form>
  );
}

function CollaboratorActions({
  channelId,
  collaborator,
  label,
}: {
  channelId: string;
  collaborator: Collaborator;
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
  const error = change.error ?? remove.error;
  return (
    <Stack gap={4}>
      <Group gap="xs" wrap="nowrap" align="flex-end">
        <NativeSelect
          size="xs"
          label={`New role for ${label}`}
          styles={{ label: { position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)' } }}
          value={role}
          onChange={(event) => setRole(event.currentTarget.value as ChannelRole)}
          data={[...CHANNEL_ROLES]}
        />
        <Button
          size="xs"
          variant="default"
          loading={change.busy}
          disabled={role === collaborator.role}
          onClick={() => void change.run()}
          aria-label={`Change role of ${label}`}
        >
          Change role
        </Button>
        <Button
          size="xs"
          color="red"
          variant="light"
          loading={remove.busy}
          onClick={() => void remove.run()}
          aria-label={`Remove ${label}`}
        >
          Remove
        </Button>
      </Group>
      {error && (
        <Text c="var(--mantine-color-error)" fz="xs" role="alert">
          {sentence(error.message)}
        </Text>
      )}
    </Stack>
  );
}
