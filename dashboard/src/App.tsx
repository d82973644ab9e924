import { useEffect, useRef, useState, type FormEvent } from 'react';
import { onInFlightChange } from './api/client';
import { useAction } from './hooks';
import { AuditLogPage } from './pages/AuditLogPage';
import { AuthPage } from './pages/AuthPage';
import { CustomerPage } from './pages/CustomerPage';
import { CustomersPage } from './pages/CustomersPage';
import { NoAccountPage } from './pages/NoAccountPage';
import { OverviewPage } from './pages/OverviewPage';
import { PaymentsPage } from './pages/PaymentsPage';
import { ProjectsPage } from './pages/ProjectsPage';
import { TeamPage } from './pages/TeamPage';
import { EventsPage } from './pages/EventsPage';
import { WebhooksPage } from './pages/WebhooksPage';
import { href, navigate, useRoute, type Route } from './router';
import { useSession, useSessionControl } from './session';
import { Button, Field, FormError, SelectField, Spinner } from './ui';

const SECTIONS: readonly { path: string; label: string; adminOnly?: boolean }[] = [
  { path: 'overview', label: 'Overview' },
  { path: 'customers', label: 'Customers' },
  { path: 'payments', label: 'Payments' },
  { path: 'events', label: 'Events' },
  { path: 'webhooks', label: 'Webhooks' },
  { path: 'team', label: 'Team' },
  { path: 'projects', label: 'Projects & keys' },
  // The API refuses it to the other roles: not offered to them.
  { path: 'audit', label: 'Audit log', adminOnly: true },
];

/** A thin bar at the top while any request is under way. */
function ProgressBar() {
  const [count, setCount] = useState(0);
  useEffect(() => onInFlightChange(setCount), []);
  return <div className={`progress${count > 0 ? ' progress-active' : ''}`} aria-hidden="true" />;
}

export function App() {
  const { session, restoring } = useSessionControl();
  const route = useRoute();
  return (
    <>
      <ProgressBar />
      {restoring ? (
        <main className="centered" aria-busy="true">
          <Spinner label="Restoring your session" />
        </main>
      ) : session ? (
        <Shell route={route} />
      ) : (
        <AuthPage route={route} />
      )}
    </>
  );
}

function Shell({ route }: { route: Route }) {
  const session = useSession();
  const section = route.path[0] ?? 'overview';
  const title = SECTIONS.find((candidate) => candidate.path === section)?.label ?? 'Overview';
  useEffect(() => {
    document.title = `${title} · Finance dashboard`;
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
        <span className="brand">Finance dashboard</span>
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
              navigate('login');
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
              <li key={candidate.path}>
                <a href={href(candidate.path)} aria-current={candidate.path === section ? 'page' : undefined}>
                  {candidate.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      )}
      <main id="main" ref={mainRef} tabIndex={-1} className="content">
        {!session.account ? <NoAccountPage /> : <Page route={route} />}
      </main>
    </div>
  );
}

function Page({ route }: { route: Route }) {
  const session = useSession();
  // Pages keyed by project: switching projects starts them afresh.
  const key = session.project?.id ?? 'none';
  switch (route.path[0]) {
    case 'customers':
      return route.path[1] ? <CustomerPage key={`${key}:${route.path[1]}`} id={route.path[1]} /> : <CustomersPage key={key} />;
    case 'payments':
      return <PaymentsPage key={key} />;
    case 'events':
      return <EventsPage key={key} />;
    case 'webhooks':
      return <WebhooksPage key={key} />;
    case 'team':
      return <TeamPage key={session.account?.id} />;
    case 'projects':
      return <ProjectsPage key={session.account?.id} />;
    case 'audit':
      return <AuditLogPage key={session.account?.id} />;
    default:
      return <OverviewPage key={key} />;
  }
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
