import { Checkbox, Code, Group, Paper, Radio, Stack, Text, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { $api, api, call, idempotencyKey, type Schemas } from '../api/client';
import { runOnSubmit, useAction } from '../hooks';
import { useSession, type PlatformProject } from '../session';
import { DateTime } from '../components/date-time';
import { ListTable, type ListColumn } from '../components/list-table';
import {
  ActionError,
  Badge,
  Button,
  EmptyState,
  Field,
  fieldError,
  FormActions,
  FormError,
  QueryStatus,
  Secret,
} from '../ui';

type ApiName = Schemas['PlatformProjectView']['enabledApis'][number];
type ApiKey = Schemas['ApiKeyView'];
type CreatedKey = Schemas['CreatedApiKeyView'];
type KeyKind = ApiKey['kind'];
/** What a change to a project's keys makes stale: its keys and the audit log. */
const KEY_CHANGE = {
  invalidates: ['/api/v1/platform/projects/{id}/keys', '/api/v1/accounts/{accountId}/audit-log'],
} as const;
/** What a change to a project makes stale: the projects (the header's too) and the audit log. */
const PROJECT_CHANGE = {
  invalidates: ['/api/v1/platform/projects', '/api/v1/accounts/{accountId}/audit-log'],
} as const;
const API_NAMES: ApiName[] = [
  'customers',
  'cards',
  'payments',
  'channels',
  'projects',
  'collections',
  'clients',
  'events',
  'webhooks',
];

/** What a key can do, in words: a publishable key's one use, or a secret key's APIs. */
export function keyAbilities(apiKey: Pick<ApiKey, 'kind' | 'scopes'>): string {
  if (apiKey.kind === 'publishable') return 'Publishable: reads published and shared content, safe in an app';
  return apiKey.scopes ? `Secret: ${apiKey.scopes.join(', ')}` : 'Secret: every API the project enables';
}

/** Platform projects (the boundary of data) with their enabled APIs, and each project's API keys. */
export function ProjectsPage() {
  const session = useSession();
  const [selected, setSelected] = useState<string | undefined>(session.project?.id);
  const [creating, setCreating] = useState(false);
  const project = session.projects.find((candidate) => candidate.id === selected) ?? session.project;

  return (
    <Stack component="section" gap="md" aria-labelledby="projects-heading">
      <Group justify="space-between">
        <Title order={1} id="projects-heading">
          Projects &amp; keys
        </Title>
        {session.isAdmin && !creating && <Button onClick={() => setCreating(true)}>New project</Button>}
      </Group>
      <Text c="dimmed" size="sm">
        Every customer, card and payment belongs to one project of {session.account?.name}. The header&apos;s project
        picker chooses the one these pages show; an API key acts in its own project only.
      </Text>
      {!session.isAdmin && (
        <Text size="sm" role="note">
          Only admins manage projects and API keys: ask an admin of the account.
        </Text>
      )}
      {creating && (
        <NewProjectForm
          onCancel={() => setCreating(false)}
          onCreated={(id) => {
            setCreating(false);
            setSelected(id);
          }}
        />
      )}
      <Stack component="ul" gap="sm" p={0} m={0} style={{ listStyle: 'none' }}>
        {session.projects.map((candidate) => (
          <ProjectItem
            key={candidate.id}
            project={candidate}
            selected={candidate.id === project?.id}
            onSelect={() => setSelected(candidate.id)}
          />
        ))}
      </Stack>
      {project && session.isAdmin && <KeysSection key={project.id} project={project} />}
    </Stack>
  );
}

function NewProjectForm({ onCancel, onCreated }: { onCancel: () => void; onCreated: (id: string) => void }) {
  const [name, setName] = useState('');
  const [apis, setApis] = useState<ApiName[]>(API_NAMES);
  const create = useAction(
    async () =>
      (
        await call(
          api.POST('/api/v1/platform/projects', {
            body: { name: name.trim(), enabledApis: apis },
            params: { header: { 'Idempotency-Key': idempotencyKey() } },
          }),
        )
      ).data.id,
    PROJECT_CHANGE,
  );
  return (
    <Paper
      withBorder
      p="md"
      component="form"
      aria-labelledby="new-project-heading"
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        // Once the header's list holds the new project.
        void create.run().then((id) => id && onCreated(id));
      }}
    >
      <Stack gap="sm">
        <Title order={2} size="h4" id="new-project-heading">
          New project
        </Title>
        <Field
          label="Name"
          required
          autoFocus
          value={name}
          onChange={(event) => setName(event.target.value)}
          error={fieldError(create.error, 'name')}
        />
        <ApiCheckboxes
          legend="Enabled APIs"
          value={apis}
          onChange={setApis}
          error={fieldError(create.error, 'enabledApis')}
        />
        <FormError error={create.error} fields={['name', 'enabledApis']} />
        <FormActions busy={create.busy} onCancel={onCancel}>
          Create project
        </FormActions>
      </Stack>
    </Paper>
  );
}

function ApiCheckboxes({
  legend,
  value,
  onChange,
  error,
  disabled,
}: {
  legend: string;
  value: ApiName[];
  onChange: (next: ApiName[]) => void;
  error?: string;
  disabled?: boolean;
}) {
  return (
    <Checkbox.Group
      label={legend}
      error={error}
      value={value}
      // In the order of API_NAMES, whatever the order of the clicks.
      onChange={(next) => onChange(API_NAMES.filter((name) => next.includes(name)))}
      readOnly={disabled}
    >
      <Group gap="md" mt={6}>
        {API_NAMES.map((name) => (
          <Checkbox key={name} value={name} label={name} disabled={disabled} />
        ))}
      </Group>
    </Checkbox.Group>
  );
}

function ProjectItem({
  project,
  selected,
  onSelect,
}: {
  project: PlatformProject;
  selected: boolean;
  onSelect: () => void;
}) {
  const session = useSession();
  const [editing, setEditing] = useState(false);
  const [apis, setApis] = useState<ApiName[]>(project.enabledApis);
  const save = useAction(async () => {
    await call(
      api.PATCH('/api/v1/platform/projects/{id}', {
        params: { path: { id: project.id } },
        body: { enabledApis: apis },
      }),
    );
    return true;
  }, PROJECT_CHANGE);
  return (
    <Paper
      component="li"
      withBorder
      p="md"
      data-project={project.id}
      style={selected ? { borderColor: 'var(--mantine-primary-color-filled)' } : undefined}
    >
      <Stack gap="xs">
        <Group justify="space-between" wrap="wrap">
          <Group gap="xs">
            <Title order={2} size="h4">
              {project.name}
            </Title>
            {project.isDefault && <Badge tone="info">Default</Badge>}
            {project.id === session.project?.id && <Badge tone="good">Shown in the pages</Badge>}
          </Group>
          <Group gap="xs">
            {!selected && session.isAdmin && (
              <Button variant="secondary" onClick={onSelect} aria-label={`API keys of ${project.name}`}>
                API keys
              </Button>
            )}
            {session.isAdmin && !editing && (
              <Button
                variant="secondary"
                onClick={() => setEditing(true)}
                aria-label={`Change APIs of ${project.name}`}
              >
                Change APIs
              </Button>
            )}
          </Group>
        </Group>
        {editing ? (
          <Stack component="form" gap="sm" onSubmit={runOnSubmit(save.run)}>
            <ApiCheckboxes
              legend={`APIs enabled in ${project.name}`}
              value={apis}
              onChange={setApis}
              error={fieldError(save.error, 'enabledApis')}
            />
            <FormError error={save.error} fields={['enabledApis']} />
            <FormActions
              busy={save.busy}
              onCancel={() => {
                setApis(project.enabledApis);
                setEditing(false);
              }}
            >
              Save
            </FormActions>
          </Stack>
        ) : (
          <Group gap={6} aria-label={`APIs enabled in ${project.name}`} role="group">
            {project.enabledApis.length === 0 ? (
              <Text c="dimmed" size="sm">
                No API enabled.
              </Text>
            ) : (
              project.enabledApis.map((name) => <Badge key={name}>{name}</Badge>)
            )}
          </Group>
        )}
        <Text c="dimmed" size="xs">
          Created <DateTime value={project.createdAt} />
        </Text>
      </Stack>
    </Paper>
  );
}

function KeysSection({ project }: { project: PlatformProject }) {
  const keys = $api.useQuery('get', '/api/v1/platform/projects/{id}/keys', { params: { path: { id: project.id } } });
  const [shown, setShown] = useState<{ key: CreatedKey; rolled: boolean } | undefined>();
  const [rolling, setRolling] = useState<ApiKey | undefined>();
  const rows = keys.data?.data ?? [];
  const live = rows.filter((key) => !key.revokedAt);

  const columns: ListColumn<ApiKey>[] = [
    {
      id: 'name',
      header: 'Name',
      rowHeader: true,
      cell: (key) => (
        <Text fw={600} size="sm">
          {key.name}
        </Text>
      ),
      sortBy: (key) => key.name,
    },
    { id: 'key', header: 'Key', width: 130, cell: (key) => <Code data-dynamic>{key.start}…</Code> },
    { id: 'abilities', header: 'What it can do', width: 220, cell: (key) => keyAbilities(key) },
    {
      id: 'created',
      header: 'Created',
      width: 110,
      cell: (key) => <DateTime value={key.createdAt} />,
      sortBy: (key) => new Date(key.createdAt),
    },
    {
      id: 'used',
      header: 'Last used',
      width: 100,
      cell: (key) => (key.lastUsedAt ? <DateTime value={key.lastUsedAt} /> : 'never'),
    },
    {
      id: 'expires',
      header: 'Expires',
      width: 100,
      cell: (key) =>
        key.revokedAt ? (
          <Badge tone="bad">Revoked</Badge>
        ) : key.expiresAt ? (
          <DateTime value={key.expiresAt} />
        ) : (
          'never'
        ),
    },
    {
      id: 'actions',
      header: 'Actions',
      hiddenHeader: true,
      width: 160,
      cell: (key) => <KeyActions projectId={project.id} apiKey={key} onRoll={() => setRolling(key)} />,
    },
  ];

  return (
    <Stack component="section" gap="sm" aria-labelledby="keys-heading">
      <Title order={2} size="h3" id="keys-heading">
        API keys of {project.name}
      </Title>
      <NewKeyForm project={project} onCreated={(key) => setShown({ key, rolled: false })} />
      {shown && (
        <Secret
          label={`${shown.rolled ? 'New key for' : 'API key'} ${shown.key.name}`}
          value={shown.key.key}
          note="This is the only time the key is shown: store it in your server's secrets now. Send it as Authorization: Bearer <key>."
        />
      )}
      <QueryStatus query={keys} loading="Loading API keys" />
      {keys.data && live.length === 0 && (
        <EmptyState title="No API keys in this project.">
          Create one above for a server that calls the API on this project&apos;s data.
        </EmptyState>
      )}
      {rows.length > 0 && (
        <ListTable
          caption={`API keys of ${project.name}`}
          rows={rows}
          columns={columns}
          rowKey={(key) => key.id}
          busy={keys.isFetching}
          rowProps={(key) => ({ 'data-key': key.id })}
        />
      )}
      {rolling && !rolling.revokedAt && (
        <RollKeyForm
          key={rolling.id}
          projectId={project.id}
          apiKey={rolling}
          onCancel={() => setRolling(undefined)}
          onRolled={(created) => {
            setRolling(undefined);
            setShown({ key: created, rolled: true });
          }}
        />
      )}
    </Stack>
  );
}

function NewKeyForm({ project, onCreated }: { project: PlatformProject; onCreated: (key: CreatedKey) => void }) {
  const [name, setName] = useState('');
  const [kind, setKind] = useState<KeyKind>('secret');
  const [limit, setLimit] = useState(false);
  const [scopes, setScopes] = useState<ApiName[]>(project.enabledApis);
  const create = useAction(async () => {
    const created = await call(
      api.POST('/api/v1/platform/projects/{id}/keys', {
        params: { path: { id: project.id }, header: { 'Idempotency-Key': idempotencyKey() } },
        body: { name: name.trim(), ...(kind === 'publishable' ? { kind } : limit ? { scopes } : {}) },
      }),
    );
    setName('');
    onCreated(created.data);
  }, KEY_CHANGE);
  return (
    <Paper withBorder p="md" component="form" aria-labelledby="new-key-heading" onSubmit={runOnSubmit(create.run)}>
      <Stack gap="sm">
        <Title order={3} size="h5" id="new-key-heading">
          New API key
        </Title>
        <Field
          label="Key name"
          required
          value={name}
          onChange={(event) => setName(event.target.value)}
          placeholder="Checkout server"
          error={fieldError(create.error, 'name')}
        />
        <Radio.Group
          label="Kind"
          value={kind}
          onChange={(value) => setKind(value as KeyKind)}
          error={fieldError(create.error, 'kind')}
        >
          <Stack gap={6} mt={6}>
            <Radio value="secret" label="Secret: for your servers, calls the data APIs of this project" />
            <Radio
              value="publishable"
              label="Publishable: reads published and shared content, safe to ship in an app"
            />
          </Stack>
        </Radio.Group>
        {kind === 'secret' && (
          <Checkbox
            label="Limit the key to some APIs"
            checked={limit}
            onChange={(event) => setLimit(event.currentTarget.checked)}
          />
        )}
        {kind === 'secret' && limit && (
          <ApiCheckboxes
            legend="Scopes"
            value={scopes}
            onChange={setScopes}
            error={fieldError(create.error, 'scopes')}
          />
        )}
        <FormError error={create.error} fields={['name', 'kind', 'scopes']} />
        <Group>
          <Button type="submit" busy={create.busy}>
            Create key
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

/** A key's row buttons: roll (the form opens under the list) and revoke. */
function KeyActions({ projectId, apiKey, onRoll }: { projectId: string; apiKey: ApiKey; onRoll: () => void }) {
  const revoke = useAction(async () => {
    await call(
      api.DELETE('/api/v1/platform/projects/{id}/keys/{keyId}', {
        params: { path: { id: projectId, keyId: apiKey.id } },
      }),
    );
  }, KEY_CHANGE);
  if (apiKey.revokedAt) return null;
  return (
    <Stack gap={4} align="flex-end">
      <Group gap="xs" wrap="nowrap" justify="flex-end">
        <Button variant="secondary" onClick={onRoll} aria-label={`Roll the key ${apiKey.name}`}>
          Roll
        </Button>
        <Button
          variant="danger"
          busy={revoke.busy}
          onClick={() => {
            if (window.confirm(`Revoke the key ${apiKey.name}? Requests with it stop at once.`)) void revoke.run();
          }}
          aria-label={`Revoke the key ${apiKey.name}`}
        >
          Revoke
        </Button>
      </Group>
      <ActionError error={revoke.error} />
    </Stack>
  );
}

/** A new key in place of `apiKey`, the old one working on for the hours given. */
function RollKeyForm({
  projectId,
  apiKey,
  onCancel,
  onRolled,
}: {
  projectId: string;
  apiKey: ApiKey;
  onCancel: () => void;
  onRolled: (key: CreatedKey) => void;
}) {
  const [hours, setHours] = useState('0');
  const roll = useAction(async () => {
    const created = await call(
      api.POST('/api/v1/platform/projects/{id}/keys/{keyId}/roll', {
        params: { path: { id: projectId, keyId: apiKey.id }, header: { 'Idempotency-Key': idempotencyKey() } },
        body: { expiresInHours: Number(hours) },
      }),
    );
    onRolled(created.data);
  }, KEY_CHANGE);
  return (
    <Paper
      withBorder
      p="md"
      component="form"
      aria-label={`Roll the key ${apiKey.name}`}
      onSubmit={runOnSubmit(roll.run)}
    >
      <Stack gap="sm">
        <Title order={3} size="h5">
          Roll the key {apiKey.name}
        </Title>
        <Field
          label="Hours the old key keeps working"
          type="number"
          min={0}
          max={168}
          step={1}
          value={hours}
          onChange={(event) => setHours(event.target.value)}
          hint="0 stops it now; at most 168 (a week)."
          error={fieldError(roll.error, 'expiresInHours')}
        />
        <FormError error={roll.error} fields={['expiresInHours']} />
        <FormActions busy={roll.busy} onCancel={onCancel}>
          Roll key
        </FormActions>
      </Stack>
    </Paper>
  );
}
