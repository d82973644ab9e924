import { useState, type FormEvent } from 'react';
import { $api, api, call, idempotencyKey, type Schemas } from '../api/client';
import { runOnSubmit, useAction } from '../hooks';
import { formatDate } from '../money';
import { useSession, type PlatformProject } from '../session';
import {
  ActionError,
  Badge,
  Button,
  DataTable,
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

/** Platform projects (the boundary of data) with their enabled APIs, and each project's API keys. */
export function ProjectsPage() {
  const session = useSession();
  const [selected, setSelected] = useState<string | undefined>(session.project?.id);
  const [creating, setCreating] = useState(false);
  const project = session.projects.find((candidate) => candidate.id === selected) ?? session.project;

  return (
    <section aria-labelledby="projects-heading">
      <div className="page-head">
        <h1 id="projects-heading">Projects &amp; keys</h1>
        {session.isAdmin && !creating && <Button onClick={() => setCreating(true)}>New project</Button>}
      </div>
      <p className="muted">
        Every customer, card and payment belongs to one project of {session.account?.name}. The header&apos;s project
        picker chooses the one these pages show; an API key acts in its own project only.
      </p>
      {!session.isAdmin && (
        <p className="notice">Only admins manage projects and API keys: ask an admin of the account.</p>
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
      <ul className="project-list">
        {session.projects.map((candidate) => (
          <ProjectItem
            key={candidate.id}
            project={candidate}
            selected={candidate.id === project?.id}
            onSelect={() => setSelected(candidate.id)}
          />
        ))}
      </ul>
      {project && session.isAdmin && <KeysSection key={project.id} project={project} />}
    </section>
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
    <form
      className="card"
      aria-labelledby="new-project-heading"
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        // Once the header's list holds the new project.
        void create.run().then((id) => id && onCreated(id));
      }}
    >
      <h2 id="new-project-heading">New project</h2>
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
    </form>
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
    <fieldset className={`checkboxes${error ? ' field-invalid' : ''}`} disabled={disabled}>
      <legend>{legend}</legend>
      {API_NAMES.map((name) => (
        <label key={name}>
          <input
            type="checkbox"
            checked={value.includes(name)}
            onChange={(event) =>
              onChange(
                event.target.checked
                  ? API_NAMES.filter((candidate) => candidate === name || value.includes(candidate))
                  : value.filter((candidate) => candidate !== name),
              )
            }
          />{' '}
          {name}
        </label>
      ))}
      {error && <div className="field-error">{error}</div>}
    </fieldset>
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
    <li className={`card project${selected ? ' project-selected' : ''}`} data-project={project.id}>
      <div className="project-head">
        <h2 className="project-name">
          {project.name} {project.isDefault && <Badge tone="info">Default</Badge>}
          {project.id === session.project?.id && <Badge tone="good">Shown in the pages</Badge>}
        </h2>
        <div className="row-actions">
          {!selected && session.isAdmin && (
            <Button variant="secondary" onClick={onSelect} aria-label={`API keys of ${project.name}`}>
              API keys
            </Button>
          )}
          {session.isAdmin && !editing && (
            <Button variant="secondary" onClick={() => setEditing(true)} aria-label={`Change APIs of ${project.name}`}>
              Change APIs
            </Button>
          )}
        </div>
      </div>
      {editing ? (
        <form onSubmit={runOnSubmit(save.run)}>
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
        </form>
      ) : (
        <p className="chips" aria-label={`APIs enabled in ${project.name}`}>
          {project.enabledApis.length === 0 ? (
            <span className="muted">No API enabled.</span>
          ) : (
            project.enabledApis.map((name) => (
              <span key={name} className="chip">
                {name}
              </span>
            ))
          )}
        </p>
      )}
      <p className="muted small">Created {formatDate(project.createdAt)}</p>
    </li>
  );
}

function KeysSection({ project }: { project: PlatformProject }) {
  const keys = $api.useQuery('get', '/api/v1/platform/projects/{id}/keys', { params: { path: { id: project.id } } });
  const [shown, setShown] = useState<{ key: CreatedKey; rolled: boolean } | undefined>();
  const rows = keys.data?.data ?? [];
  const live = rows.filter((key) => !key.revokedAt);

  return (
    <section aria-labelledby="keys-heading" className="keys">
      <h2 id="keys-heading">API keys of {project.name}</h2>
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
        <DataTable
          busy={keys.isFetching}
          caption={`API keys of ${project.name}`}
          columns={['Name', 'Key', 'Scopes', 'Created', 'Last used', 'Expires', 'Actions']}
        >
          {rows.map((key) => (
            <KeyRow
              key={key.id}
              projectId={project.id}
              apiKey={key}
              onRolled={(created) => setShown({ key: created, rolled: true })}
            />
          ))}
        </DataTable>
      )}
    </section>
  );
}

function NewKeyForm({ project, onCreated }: { project: PlatformProject; onCreated: (key: CreatedKey) => void }) {
  const [name, setName] = useState('');
  const [limit, setLimit] = useState(false);
  const [scopes, setScopes] = useState<ApiName[]>(project.enabledApis);
  const create = useAction(async () => {
    const created = await call(
      api.POST('/api/v1/platform/projects/{id}/keys', {
        params: { path: { id: project.id }, header: { 'Idempotency-Key': idempotencyKey() } },
        body: { name: name.trim(), ...(limit ? { scopes } : {}) },
      }),
    );
    setName('');
    onCreated(created.data);
  }, KEY_CHANGE);
  return (
    <form className="card" aria-labelledby="new-key-heading" onSubmit={runOnSubmit(create.run)}>
      <h3 id="new-key-heading">New API key</h3>
      <Field
        label="Key name"
        required
        value={name}
        onChange={(event) => setName(event.target.value)}
        placeholder="Checkout server"
        error={fieldError(create.error, 'name')}
      />
      <label className="checkbox">
        <input type="checkbox" checked={limit} onChange={(event) => setLimit(event.target.checked)} /> Limit the key to
        some APIs
      </label>
      {limit && (
        <ApiCheckboxes legend="Scopes" value={scopes} onChange={setScopes} error={fieldError(create.error, 'scopes')} />
      )}
      <FormError error={create.error} fields={['name', 'scopes']} />
      <Button type="submit" busy={create.busy}>
        Create key
      </Button>
    </form>
  );
}

function KeyRow({
  projectId,
  apiKey,
  onRolled,
}: {
  projectId: string;
  apiKey: ApiKey;
  onRolled: (key: CreatedKey) => void;
}) {
  const [rolling, setRolling] = useState(false);
  const [hours, setHours] = useState('0');
  const revoke = useAction(async () => {
    await call(
      api.DELETE('/api/v1/platform/projects/{id}/keys/{keyId}', {
        params: { path: { id: projectId, keyId: apiKey.id } },
      }),
    );
  }, KEY_CHANGE);
  const roll = useAction(async () => {
    const created = await call(
      api.POST('/api/v1/platform/projects/{id}/keys/{keyId}/roll', {
        params: { path: { id: projectId, keyId: apiKey.id }, header: { 'Idempotency-Key': idempotencyKey() } },
        body: { expiresInHours: Number(hours) },
      }),
    );
    setRolling(false);
    onRolled(created.data);
  }, KEY_CHANGE);
  const revoked = Boolean(apiKey.revokedAt);
  return (
    <>
      <tr data-key={apiKey.id}>
        <th scope="row">{apiKey.name}</th>
        <td className="mono">{apiKey.start}…</td>
        <td>{apiKey.scopes ? apiKey.scopes.join(', ') : 'all enabled'}</td>
        <td>{formatDate(apiKey.createdAt)}</td>
        <td>{apiKey.lastUsedAt ? formatDate(apiKey.lastUsedAt) : 'never'}</td>
        <td>
          {revoked ? <Badge tone="bad">Revoked</Badge> : apiKey.expiresAt ? formatDate(apiKey.expiresAt) : 'never'}
        </td>
        <td className="row-actions">
          {!revoked && !rolling && (
            <>
              <Button variant="secondary" onClick={() => setRolling(true)} aria-label={`Roll the key ${apiKey.name}`}>
                Roll
              </Button>
              <Button
                variant="danger"
                busy={revoke.busy}
                onClick={() => {
                  if (window.confirm(`Revoke the key ${apiKey.name}? Requests with it stop at once.`))
                    void revoke.run();
                }}
                aria-label={`Revoke the key ${apiKey.name}`}
              >
                Revoke
              </Button>
            </>
          )}
          <ActionError error={revoke.error} />
        </td>
      </tr>
      {rolling && (
        <tr className="subrow">
          <td colSpan={7}>
            <form className="inline-form" aria-label={`Roll the key ${apiKey.name}`} onSubmit={runOnSubmit(roll.run)}>
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
              <FormActions busy={roll.busy} onCancel={() => setRolling(false)}>
                Roll key
              </FormActions>
              <FormError error={roll.error} fields={['expiresInHours']} />
            </form>
          </td>
        </tr>
      )}
    </>
  );
}
