import { Link, useParams, useRouterState } from '@tanstack/react-router';
import { useEffect, useState, type FormEvent } from 'react';
import type { Schemas } from '../api/client';
import { $viewer, readShareFragment, shareFragment, type ShareAddress } from '../api/viewer';
import { PRODUCT } from '../product';
import { Button, Field, LoadError, Spinner } from '../ui';

type ViewerProject = Schemas['ViewerProjectResponse'];

/**
 * A share link's page, opened by anyone: the address carries the project, and after `#` the link's
 * token and a publishable key. It reads through the `/viewer` routes only, asks for the link's
 * password when the service does, and keeps the password in memory only (across the sub-projects
 * it opens, which are the same page).
 */
export function SharedProjectPage() {
  const { projectId } = useParams({ from: '/shared/$projectId' });
  const hash = useRouterState({ select: (state) => state.location.hash });
  const address = readShareFragment(hash);
  const [password, setPassword] = useState<string | undefined>();

  return (
    <main id="main" className="shared">
      <p className="brand">{PRODUCT} · shared with you</p>
      {address ? (
        <SharedProject projectId={projectId} address={address} password={password} onPassword={setPassword} />
      ) : (
        <Missing
          title="This link is incomplete"
          text="The address lacks part of the link: ask whoever shared it to copy it again, whole."
        />
      )}
    </main>
  );
}

function useTitle(title: string) {
  useEffect(() => {
    document.title = `${title} · ${PRODUCT}`;
  }, [title]);
}

function Missing({ title, text }: { title: string; text: string }) {
  useTitle(title);
  return (
    <section aria-labelledby="shared-heading">
      <h1 id="shared-heading">{title}</h1>
      <p>{text}</p>
    </section>
  );
}

/** The request's credentials: the publishable key, the link's token, and its password once typed. */
function viewerInit(projectId: string, address: ShareAddress, password: string | undefined) {
  return {
    params: {
      path: { projectId },
      header: { 'X-Share-Token': address.token, ...(password ? { 'X-Share-Password': password } : {}) },
    },
    headers: { Authorization: `Bearer ${address.key}` },
  };
}

function SharedProject({
  projectId,
  address,
  password,
  onPassword,
}: {
  projectId: string;
  address: ShareAddress;
  password: string | undefined;
  onPassword: (password: string) => void;
}) {
  const project = $viewer.useQuery('get', '/viewer/projects/{projectId}', viewerInit(projectId, address, password));
  const error = project.error;
  if (error?.statusCode === 404) {
    return (
      <Missing
        title="Nothing to show here"
        text="This link does not open anything: it may have been revoked or have expired, or the address is wrong."
      />
    );
  }
  // The service asks for the link's password (or says the one sent is wrong) with a 401 that names it.
  if (error?.statusCode === 401 && /password/i.test(error.message)) {
    return <PasswordForm wrong={password ? error.message : undefined} onSubmit={onPassword} />;
  }
  if (error) return <LoadError error={error} retry={() => void project.refetch()} />;
  if (!project.data) return <Spinner label="Opening the shared project" />;
  return <ProjectView project={project.data} address={address} password={password} />;
}

function PasswordForm({ wrong, onSubmit }: { wrong: string | undefined; onSubmit: (password: string) => void }) {
  const [value, setValue] = useState('');
  useTitle('Password needed');
  return (
    <section aria-labelledby="shared-heading">
      <h1 id="shared-heading">This link needs a password</h1>
      <form
        aria-label="Open the shared project"
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          onSubmit(value);
        }}
      >
        <Field
          label="Password"
          type="password"
          autoComplete="off"
          required
          autoFocus
          value={value}
          onChange={(event) => setValue(event.target.value)}
          error={wrong}
        />
        <Button type="submit">Open</Button>
      </form>
    </section>
  );
}

function ProjectView({
  project,
  address,
  password,
}: {
  project: ViewerProject;
  address: ShareAddress;
  password: string | undefined;
}) {
  useTitle(project.primaryTitle);
  const children = $viewer.useQuery('get', '/viewer/projects/{projectId}/children', {
    ...viewerInit(project.id, address, password),
    params: { ...viewerInit(project.id, address, password).params, query: { limit: 100 } },
  });
  const rows = children.data ?? [];
  const list = (values: readonly string[]) => values.join(', ');
  return (
    <article aria-labelledby="shared-heading">
      <h1 id="shared-heading">{project.primaryTitle}</h1>
      {project.description && <p>{project.description}</p>}
      <dl className="details">
        <dt>Type</dt>
        <dd>
          {project.projectTypeId}
          {project.subTypeId ? ` · ${project.subTypeId}` : ''}
        </dd>
        {project.primaryLanguageId && (
          <>
            <dt>Language</dt>
            <dd>{project.primaryLanguageId}</dd>
          </>
        )}
        {project.categoryId && (
          <>
            <dt>Category</dt>
            <dd>{[project.categoryId, project.subCategoryId].filter(Boolean).join(' · ')}</dd>
          </>
        )}
        {/* Links, not <img>: the dashboard's Content-Security-Policy loads images from its own origin only. */}
        {(project.portraitImg || project.landscapeImg) && (
          <>
            <dt>Images</dt>
            <dd>
              {project.portraitImg && (
                <a href={project.portraitImg} rel="noreferrer noopener" target="_blank">
                  Portrait
                </a>
              )}
              {project.portraitImg && project.landscapeImg && ' · '}
              {project.landscapeImg && (
                <a href={project.landscapeImg} rel="noreferrer noopener" target="_blank">
                  Landscape
                </a>
              )}
            </dd>
          </>
        )}
        {project.topicIds.length > 0 && (
          <>
            <dt>Topics</dt>
            <dd>{list(project.topicIds)}</dd>
          </>
        )}
        {project.supportedFormats.length > 0 && (
          <>
            <dt>Formats</dt>
            <dd>{list(project.supportedFormats)}</dd>
          </>
        )}
      </dl>
      <section aria-labelledby="shared-children-heading">
        <h2 id="shared-children-heading">Inside</h2>
        {children.isPending && <Spinner label="Loading what is inside" />}
        {children.error && <LoadError error={children.error} retry={() => void children.refetch()} />}
        {children.data && rows.length === 0 && <p className="muted">Nothing else to see inside.</p>}
        {rows.length > 0 && (
          <ul>
            {rows.map((child) => (
              <li key={child.id} data-shared-project={child.id}>
                <Link to="/shared/$projectId" params={{ projectId: child.id }} hash={shareFragment(address)}>
                  {child.primaryTitle}
                </Link>{' '}
                <span className="muted small">{child.projectTypeId}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </article>
  );
}
