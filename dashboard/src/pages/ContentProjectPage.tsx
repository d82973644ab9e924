import { ActionIcon, Badge, Group, Menu, Paper, Text, Title } from '@mantine/core';
import { Link, useNavigate } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { $api, api, call, idempotencyKey, type Schemas } from '../api/client';
import { shareAddress } from '../api/viewer';
import {
  ACCESS_LABELS,
  ACCESS_MEANINGS,
  CONTENT_PAGE_MAX,
  localToIso,
  PROJECT_ACCESS,
  PROJECT_STATUSES,
  STATUS_COLORS,
  STATUS_LABELS,
  typeLabel,
  type ContentProject,
  type ProjectAccess,
  type ProjectStatus,
} from '../content';
import { DateTime } from '../components/date-time';
import { ListTable } from '../components/list-table';
import { type Action, runOnSubmit, useAction } from '../hooks';
import { formatDate } from '../money';
import { useSession } from '../session';
import { ConfirmModal, CONTRAST_VARS, ProjectThumb, sentence, DIALOG_ROOT } from './content-forms';
import { AssetsList } from './ProjectAssetsPage';
import {
  Button,
  EmptyState,
  Field,
  fieldError,
  FormActions,
  FormError,
  Options,
  PageLoadError,
  QueryStatus,
  Secret,
  SelectField,
  Spinner,
} from '../ui';

type ShareLink = Schemas['ShareLinkView'];
type Grant = Schemas['GrantView'];
type GrantRole = Grant['role'];

const PROJECT_CHANGE = { invalidates: ['/channels/{channelId}/projects', '/projects/', '/channels/{id}'] } as const;
const SHARE_LINK_CHANGE = {
  invalidates: ['/projects/{projectId}/share-links', '/api/v1/accounts/{accountId}/audit-log'],
} as const;
const GRANT_CHANGE = {
  invalidates: ['/projects/{projectId}/grants', '/api/v1/accounts/{accountId}/audit-log'],
} as const;
const GRANT_ROLES: readonly GrantRole[] = ['viewer', 'editor'];
const OBJECT_ID = /^[0-9a-f]{24}$/i;

/** Where the page keeps the publishable key share-link addresses are made with, per platform project: it is safe to show, like any publishable key. */
const publishableKeyStorage = (platformProjectId: string) => `platform-dashboard.share-key.${platformProjectId}`;

/** A content project: its fields, who may see it (access), its share links and grants, and a place for its assets. */
export function ContentProjectPage({ projectId }: { projectId: string }) {
  const project = $api.useQuery('get', '/projects/{projectId}', { params: { path: { projectId } } });
  const channelId = project.data?.channelId;
  const channel = $api.useQuery(
    'get',
    '/channels/{id}',
    { params: { path: { id: channelId ?? '' } } },
    { enabled: Boolean(channelId) },
  );
  const parentId = project.data?.parentId;
  const parent = $api.useQuery(
    'get',
    '/projects/{projectId}',
    { params: { path: { projectId: parentId ?? '' } } },
    { enabled: Boolean(parentId) },
  );

  if (project.error) {
    return (
      <PageLoadError
        headingId="content-project-heading"
        heading="Project"
        error={project.error}
        retry={() => void project.refetch()}
      >
        Back to <Link to="/content">Content</Link>.
      </PageLoadError>
    );
  }
  if (!project.data) return <Spinner label="Loading the project" />;
  const data = project.data;
  return (
    <section aria-labelledby="content-project-heading" style={CONTRAST_VARS} {...DIALOG_ROOT}>
      <p className="breadcrumb">
        <Link to="/content">Content</Link>
        {channel.data && (
          <>
            {' / '}
            <Link to="/content/channels/$channelId" params={{ channelId: data.channelId }}>
              {channel.data.name}
            </Link>
          </>
        )}
        {parent.data && (
          <>
            {' / '}
            <Link to="/content/projects/$projectId" params={{ projectId: parent.data._id }}>
              {parent.data.primaryTitle}
            </Link>
          </>
        )}
      </p>
      <h1 id="content-project-heading">{data.primaryTitle}</h1>
      <ProjectFields project={data} />
      <AccessSection project={data} />
      <ShareLinksSection project={data} />
      <GrantsSection project={data} />
      <SubProjectsSection project={data} />
      <Paper withBorder p="md" mb="md" component="section" aria-labelledby="assets-heading">
        <Group justify="space-between" mb="xs">
          <Title order={2} id="assets-heading">
            Assets
          </Title>
          <Link to="/content/projects/$projectId/assets" params={{ projectId: data._id }}>
            Open the assets page
          </Link>
        </Group>
        <AssetsList projectId={data._id} title={data.primaryTitle} />
      </Paper>
    </section>
  );
}

function ProjectFields({ project }: { project: ContentProject }) {
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState(project.primaryTitle);
  const [description, setDescription] = useState(project.description ?? '');
  const [status, setStatus] = useState<ProjectStatus>(project.status);
  const save = useAction(async () => {
    await call(
      api.PUT('/projects/{projectId}', {
        params: { path: { projectId: project._id } },
        body: { primaryTitle: title.trim(), description: description.trim() || null, status },
      }),
    );
    setEditing(false);
    return true;
  }, PROJECT_CHANGE);
  const list = (values: readonly string[]) => (values.length ? values.join(', ') : '—');
  return (
    <section aria-labelledby="fields-heading" className="card">
      <div className="page-head">
        <h2 id="fields-heading">Fields</h2>
        {!editing && (
          <Button variant="secondary" onClick={() => setEditing(true)}>
            Edit
          </Button>
        )}
      </div>
      {editing ? (
        <form aria-label="Edit the project" onSubmit={runOnSubmit(save.run)}>
          <Field
            label="Title"
            required
            value={title}
            onChange={(event) => setTitle(event.target.value)}
            error={fieldError(save.error, 'primaryTitle')}
          />
          <Field
            label="Description"
            value={description}
            onChange={(event) => setDescription(event.target.value)}
            error={fieldError(save.error, 'description')}
          />
          <SelectField
            label="Status"
            value={status}
            onChange={(event) => setStatus(event.target.value as ProjectStatus)}
            error={fieldError(save.error, 'status')}
            hint="Viewers see published projects only; archiving hides the sub-projects too."
          >
            <Options values={PROJECT_STATUSES} />
          </SelectField>
          <FormError error={save.error} fields={['primaryTitle', 'description', 'status']} />
          <FormActions busy={save.busy} onCancel={() => setEditing(false)}>
            Save
          </FormActions>
        </form>
      ) : (
        <dl className="details">
          <dt>Status</dt>
          <dd>
            <Badge variant="light" color={STATUS_COLORS[project.status]}>
              {STATUS_LABELS[project.status]}
            </Badge>
          </dd>
          <dt>Type</dt>
          <dd>
            {typeLabel(project.projectTypeId)}
            {project.subTypeId ? ` · ${project.subTypeId}` : ''}
          </dd>
          <dt>Description</dt>
          <dd>{project.description ?? '—'}</dd>
          <dt>Upload type</dt>
          <dd>{project.contentUploadType ?? '—'}</dd>
          <dt>Language</dt>
          <dd>{project.primaryLanguageId ?? '—'}</dd>
          <dt>Category</dt>
          <dd>{[project.categoryId, project.subCategoryId].filter(Boolean).join(' · ') || '—'}</dd>
          <dt>Topics</dt>
          <dd>{list(project.topicIds)}</dd>
          <dt>Formats, modes, features</dt>
          <dd>
            {[list(project.supportedFormats), list(project.supportedModes), list(project.supportedFeatures)].join(
              ' · ',
            )}
          </dd>
          <dt>Created</dt>
          <dd data-dynamic>{formatDate(project.createdAt)}</dd>
          <dt>Updated</dt>
          <dd data-dynamic>{formatDate(project.updatedAt)}</dd>
        </dl>
      )}
    </section>
  );
}

function AccessSection({ project }: { project: ContentProject }) {
  const [access, setAccess] = useState<ProjectAccess>(project.access);
  const save = useAction(async () => {
    await call(api.PUT('/projects/{projectId}', { params: { path: { projectId: project._id } }, body: { access } }));
    return true;
  }, PROJECT_CHANGE);
  return (
    <section aria-labelledby="access-heading" className="card">
      <h2 id="access-heading">Who may see it</h2>
      <p data-access-meaning={project.access}>
        <strong>{ACCESS_LABELS[project.access]}:</strong> {ACCESS_MEANINGS[project.access]} A sub-project is never more
        visible than this project.
      </p>
      <form aria-label="Change who may see the project" onSubmit={runOnSubmit(save.run)}>
        <SelectField
          label="Access"
          value={access}
          onChange={(event) => setAccess(event.target.value as ProjectAccess)}
          hint={access === project.access ? undefined : ACCESS_MEANINGS[access]}
          error={fieldError(save.error, 'access')}
        >
          <Options values={PROJECT_ACCESS} labels={ACCESS_LABELS} />
        </SelectField>
        <FormError error={save.error} fields={['access']} />
        <Button type="submit" busy={save.busy} disabled={access === project.access}>
          Save access
        </Button>
      </form>
    </section>
  );
}

/** An ISO date that has passed. */
const passed = (iso: string | null) => iso !== null && new Date(iso).getTime() <= Date.now();

/** A share link or a grant: what its rows show of its end and offer to revoke. */
interface Revocable {
  revokedAt: string | null;
  expiresAt: string | null;
}

/** When access through a link or a grant ends: revoked, passed (`passedLabel`), its date, or never. */
function EndState({ access, passedLabel }: { access: Revocable; passedLabel: string }) {
  if (access.revokedAt)
    return (
      <Badge variant="light" color="red">
        Revoked
      </Badge>
    );
  if (passed(access.expiresAt))
    return (
      <Badge variant="light" color="yellow">
        {passedLabel}
      </Badge>
    );
  return access.expiresAt ? <DateTime value={access.expiresAt} /> : <>never</>;
}

/**
 * A link's or a grant's row menu: Revoke, asked once more, while it is not revoked. `what` names it
 * in the menu's label and the question ("the link shr_ab…").
 */
function RevokeMenu({
  access,
  revoke,
  what,
  consequence,
}: {
  access: Revocable;
  revoke: Action<[], boolean>;
  what: string;
  consequence: string;
}) {
  const [asking, setAsking] = useState(false);
  if (access.revokedAt && !revoke.error) return null;
  return (
    <Group gap={4} justify="flex-end" wrap="nowrap">
      {revoke.error && (
        <Text c="var(--mantine-color-error)" fz="xs" role="alert">
          {sentence(revoke.error.message)}
        </Text>
      )}
      <Menu position="bottom-end" withinPortal>
        <Menu.Target>
          <ActionIcon variant="subtle" color="gray" aria-label={`Actions for ${what}`} loading={revoke.busy}>
            <span aria-hidden="true">⋯</span>
          </ActionIcon>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Item onClick={() => setAsking(true)}>Revoke</Menu.Item>
        </Menu.Dropdown>
      </Menu>
      {asking && (
        <ConfirmModal
          title={`Revoke ${what}`}
          confirm="Revoke"
          onConfirm={() => void revoke.run()}
          onClose={() => setAsking(false)}
        >
          {consequence} This cannot be undone.
        </ConfirmModal>
      )}
    </Group>
  );
}

function ShareLinksSection({ project }: { project: ContentProject }) {
  const links = $api.useQuery('get', '/projects/{projectId}/share-links', {
    params: { path: { projectId: project._id }, query: { limit: CONTENT_PAGE_MAX } },
  });
  const [created, setCreated] = useState<string | undefined>();
  const rows = links.data ?? [];
  return (
    <section aria-labelledby="share-links-heading" className="card">
      <h2 id="share-links-heading">Share links</h2>
      <p className="muted">
        A link opens this project and its sub-projects to whoever holds it, where the project or one above it is Link
        only, once published.
      </p>
      <NewShareLinkForm project={project} onCreated={setCreated} />
      {created && (
        <Secret
          label="Share link address"
          value={created}
          note="This is the only time the link is shown: copy it now. It opens a page that needs no sign-in."
        />
      )}
      <QueryStatus query={links} loading="Loading the share links" />
      {links.data && (
        <ListTable
          caption={`Share links of ${project.primaryTitle}`}
          rows={rows}
          rowKey={(link) => link.id}
          busy={links.isFetching}
          rowProps={(link) => ({ 'data-share-link': link.id })}
          empty={<EmptyState title="No share links yet." />}
          initialSort={{ id: 'created', desc: true }}
          columns={[
            {
              id: 'link',
              header: 'Link',
              cell: (link) => (
                <Text ff="monospace" fz="sm" data-dynamic>
                  {link.start}…
                </Text>
              ),
            },
            { id: 'password', header: 'Password', width: 100, cell: (link) => (link.hasPassword ? 'Yes' : 'No') },
            {
              id: 'views',
              header: 'Views',
              width: 80,
              align: 'right',
              sortBy: (link) => link.views,
              cell: (link) => link.views,
            },
            {
              id: 'expires',
              header: 'Expires',
              width: 170,
              sortBy: (link) => link.expiresAt ?? undefined,
              cell: (link) => <EndState access={link} passedLabel="Expired" />,
            },
            {
              id: 'created',
              header: 'Created',
              width: 170,
              sortBy: (link) => new Date(link.createdAt),
              cell: (link) => <DateTime value={link.createdAt} />,
            },
            {
              id: 'actions',
              header: 'Actions',
              hiddenHeader: true,
              width: 64,
              align: 'right',
              cell: (link) => <ShareLinkMenu link={link} />,
            },
          ]}
        />
      )}
    </section>
  );
}

function NewShareLinkForm({ project, onCreated }: { project: ContentProject; onCreated: (address: string) => void }) {
  const session = useSession();
  const platformProjectId = session.project?.id ?? '';
  const [key, setKey] = useState(() => localStorage.getItem(publishableKeyStorage(platformProjectId)) ?? '');
  const [password, setPassword] = useState('');
  const [until, setUntil] = useState('');
  const create = useAction(async () => {
    const link = await call(
      api.POST('/projects/{projectId}/share-links', {
        params: { path: { projectId: project._id }, header: { 'Idempotency-Key': idempotencyKey() } },
        body: { ...(password ? { password } : {}), expiresAt: localToIso(until) ?? null },
      }),
    );
    localStorage.setItem(publishableKeyStorage(platformProjectId), key.trim());
    setPassword('');
    setUntil('');
    onCreated(shareAddress(window.location.origin, project._id, { token: link.token, key: key.trim() }));
    return true;
  }, SHARE_LINK_CHANGE);
  const makeKey = useAction(
    async () => {
      const made = await call(
        api.POST('/api/v1/platform/projects/{id}/keys', {
          params: { path: { id: platformProjectId }, header: { 'Idempotency-Key': idempotencyKey() } },
          body: { name: 'Share links', kind: 'publishable' },
        }),
      );
      setKey(made.data.key);
      return true;
    },
    { invalidates: ['/api/v1/platform/projects/{id}/keys', '/api/v1/accounts/{accountId}/audit-log'] },
  );
  const keyLooksRight = key.trim().startsWith('pk_');
  return (
    <form
      aria-labelledby="new-share-link-heading"
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        if (keyLooksRight) void create.run();
      }}
    >
      <h3 id="new-share-link-heading">New share link</h3>
      <Field
        label="Publishable key"
        required
        className="mono"
        data-dynamic
        value={key}
        onChange={(event) => setKey(event.target.value)}
        error={
          key && !keyLooksRight ? 'A publishable key starts with pk_ (a secret key must never be shared).' : undefined
        }
        hint={
          <>
            The link&apos;s page reads the project with a publishable key (pk_test_…) of{' '}
            {session.project?.name ?? 'this project'}, which is safe to share; it is kept in this browser for the next
            link. Keys are on the <Link to="/projects">Projects &amp; keys</Link> page.
          </>
        }
      />
      {session.isAdmin && !key && (
        <p>
          <Button variant="secondary" busy={makeKey.busy} onClick={() => void makeKey.run()}>
            Create a publishable key
          </Button>
        </p>
      )}
      <FormError error={makeKey.error} />
      <Field
        label="Password (optional)"
        type="password"
        autoComplete="new-password"
        value={password}
        onChange={(event) => setPassword(event.target.value)}
        hint="At least 8 characters; viewers type it before they see the project."
        error={fieldError(create.error, 'password')}
      />
      <Field
        label="Expires (optional)"
        type="datetime-local"
        value={until}
        onChange={(event) => setUntil(event.target.value)}
        error={fieldError(create.error, 'expiresAt')}
      />
      <FormError error={create.error} fields={['password', 'expiresAt']} />
      <Button type="submit" busy={create.busy}>
        Create share link
      </Button>
    </form>
  );
}

function ShareLinkMenu({ link }: { link: ShareLink }) {
  const revoke = useAction(async () => {
    await call(
      api.DELETE('/projects/{projectId}/share-links/{shareLinkId}', {
        params: { path: { projectId: link.projectId, shareLinkId: link.id } },
      }),
    );
    return true;
  }, SHARE_LINK_CHANGE);
  return (
    <RevokeMenu
      access={link}
      revoke={revoke}
      what={`the link ${link.start}`}
      consequence="Whoever holds this link can no longer open the project with it."
    />
  );
}

function GrantsSection({ project }: { project: ContentProject }) {
  const grants = $api.useQuery('get', '/projects/{projectId}/grants', {
    params: { path: { projectId: project._id }, query: { limit: CONTENT_PAGE_MAX } },
  });
  const rows = grants.data ?? [];
  return (
    <section aria-labelledby="grants-heading" className="card">
      <h2 id="grants-heading">Grants</h2>
      <p className="muted">
        A grant opens this project and its sub-projects to one person, where the project or one above it is Permissions,
        once published.
      </p>
      <NewGrantForm project={project} />
      <QueryStatus query={grants} loading="Loading the grants" />
      {grants.data && (
        <ListTable
          caption={`Grants of ${project.primaryTitle}`}
          rows={rows}
          rowKey={(grant) => grant.id}
          busy={grants.isFetching}
          rowProps={(grant) => ({ 'data-grant': grant.id })}
          empty={<EmptyState title="No grants yet." />}
          columns={[
            { id: 'person', header: 'Person', sortBy: personOf, cell: personOf },
            { id: 'role', header: 'Role', width: 90, sortBy: (grant) => grant.role, cell: (grant) => grant.role },
            {
              id: 'views',
              header: 'Views',
              width: 80,
              align: 'right',
              sortBy: (grant) => grant.views,
              cell: (grant) => grant.views,
            },
            {
              id: 'ends',
              header: 'Ends',
              width: 170,
              sortBy: (grant) => grant.expiresAt ?? undefined,
              cell: (grant) => <EndState access={grant} passedLabel="Ended" />,
            },
            {
              id: 'created',
              header: 'Created',
              width: 170,
              sortBy: (grant) => new Date(grant.createdAt),
              cell: (grant) => <DateTime value={grant.createdAt} />,
            },
            {
              id: 'actions',
              header: 'Actions',
              hiddenHeader: true,
              width: 64,
              align: 'right',
              cell: (grant) => <GrantMenu grant={grant} />,
            },
          ]}
        />
      )}
    </section>
  );
}

function NewGrantForm({ project }: { project: ContentProject }) {
  const [who, setWho] = useState('');
  const [role, setRole] = useState<GrantRole>('viewer');
  const [until, setUntil] = useState('');
  const create = useAction(async () => {
    const person = who.trim();
    await call(
      api.POST('/projects/{projectId}/grants', {
        params: { path: { projectId: project._id }, header: { 'Idempotency-Key': idempotencyKey() } },
        body: {
          ...(OBJECT_ID.test(person) ? { userId: person } : { email: person }),
          role,
          expiresAt: localToIso(until) ?? null,
        },
      }),
    );
    setWho('');
    setUntil('');
    return true;
  }, GRANT_CHANGE);
  return (
    <form aria-labelledby="new-grant-heading" onSubmit={runOnSubmit(create.run)}>
      <h3 id="new-grant-heading">New grant</h3>
      <Field
        label="Email or user id"
        required
        value={who}
        onChange={(event) => setWho(event.target.value)}
        hint="An email works before its owner signs up: the grant waits for them."
        error={fieldError(create.error, 'email', 'userId')}
      />
      <SelectField
        label="Grant role"
        value={role}
        onChange={(event) => setRole(event.target.value as GrantRole)}
        error={fieldError(create.error, 'role')}
      >
        <Options values={GRANT_ROLES} />
      </SelectField>
      <Field
        label="Grant ends (optional)"
        type="datetime-local"
        value={until}
        onChange={(event) => setUntil(event.target.value)}
        error={fieldError(create.error, 'expiresAt')}
      />
      <FormError error={create.error} fields={['email', 'userId', 'role', 'expiresAt']} />
      <Button type="submit" busy={create.busy}>
        Grant access
      </Button>
    </form>
  );
}

const personOf = (grant: Grant) => grant.email ?? grant.userId ?? '—';

function GrantMenu({ grant }: { grant: Grant }) {
  const revoke = useAction(async () => {
    await call(
      api.DELETE('/projects/{projectId}/grants/{grantId}', {
        params: { path: { projectId: grant.projectId, grantId: grant.id } },
      }),
    );
    return true;
  }, GRANT_CHANGE);
  const person = personOf(grant);
  return (
    <RevokeMenu
      access={grant}
      revoke={revoke}
      what={`the grant of ${person}`}
      consequence={`${person} can no longer see the project through this grant.`}
    />
  );
}

/** The project's direct sub-projects, each opening its own page; the channel's tree makes and moves them. */
function SubProjectsSection({ project }: { project: ContentProject }) {
  const children = $api.useQuery('get', '/projects/{projectId}/children', {
    params: { path: { projectId: project._id }, query: { limit: CONTENT_PAGE_MAX } },
  });
  const rows = children.data ?? [];
  return (
    <Paper withBorder p="md" mb="md" component="section" aria-labelledby="sub-projects-heading">
      <Group justify="space-between" mb="xs">
        <Title order={2} id="sub-projects-heading">
          Sub-projects
        </Title>
        <Link to="/content/channels/$channelId" params={{ channelId: project.channelId }}>
          Change them in the channel&apos;s tree
        </Link>
      </Group>
      <QueryStatus query={children} loading="Loading the sub-projects" />
      {children.data && (
        <ListTable
          caption={`Sub-projects of ${project.primaryTitle}`}
          rows={rows}
          rowKey={(child) => child._id}
          busy={children.isFetching}
          rowProps={(child) => ({ 'data-content-project': child._id })}
          empty={<Text c="dimmed">No sub-projects yet.</Text>}
          columns={[
            {
              id: 'title',
              header: 'Project',
              sortBy: (child) => child.primaryTitle,
              cell: (child) => (
                <Group gap="sm" wrap="nowrap">
                  <ProjectThumb type={typeLabel(child.projectTypeId)} />
                  <Link to="/content/projects/$projectId" params={{ projectId: child._id }} style={{ fontWeight: 500 }}>
                    {child.primaryTitle}
                  </Link>
                </Group>
              ),
            },
            {
              id: 'type',
              header: 'Type',
              width: 110,
              sortBy: (child) => typeLabel(child.projectTypeId),
              cell: (child) => typeLabel(child.projectTypeId),
            },
            {
              id: 'status',
              header: 'Status',
              width: 120,
              sortBy: (child) => STATUS_LABELS[child.status],
              cell: (child) => (
                <Badge variant="light" color={STATUS_COLORS[child.status]}>
                  {STATUS_LABELS[child.status]}
                </Badge>
              ),
            },
            {
              id: 'access',
              header: 'Access',
              width: 120,
              sortBy: (child) => ACCESS_LABELS[child.access],
              cell: (child) => ACCESS_LABELS[child.access],
            },
            {
              id: 'updated',
              header: 'Updated',
              width: 170,
              sortBy: (child) => new Date(child.updatedAt),
              cell: (child) => <DateTime value={child.updatedAt} />,
            },
            {
              id: 'actions',
              header: 'Actions',
              hiddenHeader: true,
              width: 64,
              align: 'right',
              cell: (child) => <SubProjectMenu project={child} />,
            },
          ]}
        />
      )}
      {rows.length === CONTENT_PAGE_MAX && (
        <Text c="dimmed" fz="sm">
          The first {CONTENT_PAGE_MAX} sub-projects are shown.
        </Text>
      )}
    </Paper>
  );
}

function SubProjectMenu({ project }: { project: ContentProject }) {
  const navigate = useNavigate();
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <ActionIcon variant="subtle" color="gray" aria-label={`Actions for ${project.primaryTitle}`}>
          <span aria-hidden="true">⋯</span>
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item
          onClick={() => void navigate({ to: '/content/projects/$projectId', params: { projectId: project._id } })}
        >
          Open
        </Menu.Item>
        <Menu.Item
          onClick={() =>
            void navigate({ to: '/content/projects/$projectId/assets', params: { projectId: project._id } })
          }
        >
          Open its assets
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
