import { Link, Outlet, useNavigate, useRouterState, type LinkProps } from '@tanstack/react-router';
import { Fragment, useEffect, useRef, useState, type FormEvent } from 'react';
import { onInFlightChange } from './api/client';
import { useAction } from './hooks';
import { AuthPage } from './pages/AuthPage';
import { PRODUCT } from './product';
import { NoAccountPage } from './pages/NoAccountPage';
import { useSession, useSessionControl } from './session';
import { Button, Field, FormError, SelectField, Spinner } from './ui';

const SECTIONS: readonly { to: NonNullable<LinkProps['to']>; label: string; adminOnly?: boolean }[] = [
  { to: '/overview', label: 'Overview' },
  { to: '/customers', label: 'Customers' },
  { to: '/payments', label: 'Payments' },
  { to: '/content', label: 'Content' },
  { to: '/events', label: 'Events' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/team', label: 'Team' },
  { to: '/projects', label: 'Projects & keys' },
  // The API refuses it to the other roles: not offered to them.
  { to: '/audit', label: 'Audit log', adminOnly: true },
  { to: '/security', label: 'Security' },
];

/** The section a path is in (`/customers/<id>` is in `/customers`). */
function sectionOf(pathname: string) {
  return SECTIONS.find((candidate) => pathname === candidate.to || pathname.startsWith(`${candidate.to}/`));
}

/** A thin bar at the top while any request is under way. */
function ProgressBar() {
  const [count, setCount] = useState(0);
  useEffect(() => onInFlightChange(setCount), []);
  return <div className={`progress${count > 0 ? ' progress-active' : ''}`} aria-hidden="true" />;
}

/** The root route: the login and signup forms while signed out (whatever the address, which stays for after), else the shell around the route's page. */
export function App() {
  const { session, restoring } = useSessionControl();
  const pathname = useRouterState({ select: (state) => state.location.pathname });
  return (
    <>
      <ProgressBar />
      {restoring ? (
        <main className="centered" aria-busy="true">
          <Spinner label="Restoring your session" />
        </main>
      ) : session ? (
        <Shell pathname={pathname} />
      ) : (
        <AuthPage signingUp={pathname === '/signup'} />
      )}
    </>
  );
}

/** An address the dashboard has no page for. */
export function NotFoundPage() {
  return (
    <section aria-labelledby="not-found-heading">
      <h1 id="not-found-heading">Page not found</h1>
      <p>
        The dashboard has no page at this address. Go to the <Link to="/overview">overview</Link>.
      </p>
    </section>
  );
}

function Shell({ pathname }: { pathname: string }) {
  const session = useSession();
  const navigate = useNavigate();
  const current = sectionOf(pathname);
  const section = current?.to ?? pathname;
  const title = current?.label ?? 'Page not found';
  useEffect(() => {
    document.title = `${title} · ${PRODUCT}`;
  }, [title]);
  const mainRef = useRef<HTMLElement>(null);
  // Moves focus to the page on navigation, so keyboard and screen-reader users start at its heading.
  const firstRender = useRef(true);
  useEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    mainRef.current?.focus();
  }, [section]);

  return (
    <div className="shell">
      <a className="skip-link" href="#main" onClick={(event) => (event.preventDefault(), mainRef.current?.focus())}>
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">
          {PRODUCT}
          <span className="brand-scope"> · finance and content</span>
        </span>
        <ContextSwitcher />
        <div className="user">
          <span className="user-name">
            {session.me.user.firstName} {session.me.user.lastName}
            {session.account && <span className="user-role"> · {session.account.owner ? 'owner' : session.account.role}</span>}
          </span>
          <Button
            variant="secondary"
            onClick={() => {
              session.logout();
              void navigate({ to: '/login' });
            }}
          >
            Log out
          </Button>
        </div>
      </header>
      {session.account && (
        <nav className="sidebar" aria-label="Sections">
          <ul>
            {SECTIONS.filter((candidate) => !candidate.adminOnly || session.isAdmin).map((candidate) => (
              <li key={candidate.to}>
                {/* Marked aria-current="page" by the router while its section is shown. */}
                <Link to={candidate.to}>{candidate.label}</Link>
              </li>
            ))}
          </ul>
        </nav>
      )}
      <main id="main" ref={mainRef} tabIndex={-1} className="content">
        {/* Keyed by account and project: switching either starts the page afresh. */}
        {!session.account ? (
          <NoAccountPage />
        ) : (
          <Fragment key={`${session.account.id}:${session.project?.id ?? 'none'}`}>
            <Outlet />
          </Fragment>
        )}
      </main>
    </div>
  );
}

/** The account (a new login with `accountId`) and the platform project (`X-Project-Id`) the pages act in. */
function ContextSwitcher() {
  const session = useSession();
  const [target, setTarget] = useState<string | undefined>();
  const [password, setPassword] = useState('');
  const switching = useAction(async (accountId: string, secret: string) => {
    await session.switchAccount(accountId, secret);
    return true;
  });
  const targetName = session.me.memberships.find((membership) => membership.id === target)?.name;

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!target) return;
    if (await switching.run(target, password)) setTarget(undefined);
  }

  return (
    <div className="context">
      {session.me.memberships.length > 0 && (
        <SelectField
          label="Account"
          value={target ?? session.account?.id ?? ''}
          onChange={(event) => {
            const value = event.target.value;
            setPassword('');
            switching.reset();
            setTarget(value === session.account?.id ? undefined : value);
          }}
        >
          {session.me.memberships.map((membership) => (
            <option key={membership.id} value={membership.id}>
              {membership.name} ({membership.owner ? 'owner' : membership.role})
            </option>
          ))}
        </SelectField>
      )}
      {session.account && session.projects.length > 0 && (
        <SelectField label="Project" value={session.project?.id ?? ''} onChange={(event) => session.selectProject(event.target.value)}>
          {session.projects.map((project) => (
            <option key={project.id} value={project.id}>
              {project.name}
              {project.isDefault ? ' (default)' : ''}
            </option>
          ))}
        </SelectField>
      )}
      {target && (
        <form className="switch-account" onSubmit={submit} aria-label={`Switch to ${targetName}`}>
          <Field
            label={`Password to switch to ${targetName}`}
            type="password"
            autoComplete="current-password"
            autoFocus
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            error={switching.error?.status === 401 ? switching.error.message : undefined}
          />
          <div className="actions">
            <Button type="submit" busy={switching.busy}>
              Switch account
            </Button>
            <Button variant="secondary" onClick={() => setTarget(undefined)}>
              Cancel
            </Button>
          </div>
          {switching.error?.status !== 401 && <FormError error={switching.error} fields={['password']} />}
        </form>
      )}
    </div>
  );
}
