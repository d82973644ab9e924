import { Link, Outlet, useNavigate, useRouterState, type LinkProps } from '@tanstack/react-router';
import { Fragment, useEffect, useRef, useState, type ComponentType } from 'react';
import { onInFlightChange } from './api/client';
import { StepUpDialog } from './auth/StepUpDialog';
import { SwitchAccountForm } from './auth/SwitchAccountForm';
import { AuthPage } from './pages/AuthPage';
import { InvitationPage, ResetPasswordPage, VerifyEmailPage } from './pages/EmailLinkPages';
import { PRODUCT } from './product';
import { NoAccountPage } from './pages/NoAccountPage';
import { SessionProvider, useSession, useSessionControl } from './session';
import { Button, SelectField, Spinner } from './ui';

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

/** The pages the service's mails link to: shown signed in or not, without the shell. */
const MAILED_PAGES: Record<string, ComponentType> = {
  '/reset-password': ResetPasswordPage,
  '/verify-email': VerifyEmailPage,
  '/invitation': InvitationPage,
};

/** The address of a share link's page: outside the session, which it neither needs nor reads. */
const SHARED_PREFIX = '/shared/';

/**
 * The root route: a share link's page on its own, for anyone; else a mailed link's page; else the
 * signed-out pages while signed out (whatever the address, which stays for after); else the shell
 * around the route's page. The step-up prompt waits above them all for an action that asks for it.
 */
export function App() {
  const pathname = useRouterState({ select: (state) => state.location.pathname });
  return pathname.startsWith(SHARED_PREFIX) ? (
    <Outlet />
  ) : (
    <SessionProvider>
      <SignedInApp pathname={pathname} />
    </SessionProvider>
  );
}

function SignedInApp({ pathname }: { pathname: string }) {
  const { session, restoring } = useSessionControl();
  const Mailed = MAILED_PAGES[pathname];
  return (
    <>
      <ProgressBar />
      {restoring ? (
        <main className="centered" aria-busy="true">
          <Spinner label="Restoring your session" />
        </main>
      ) : Mailed ? (
        <Mailed />
      ) : session ? (
        <Shell pathname={pathname} />
      ) : (
        <AuthPage mode={pathname === '/signup' ? 'signup' : pathname === '/forgot-password' ? 'forgot' : 'login'} />
      )}
      <StepUpDialog />
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
            {session.account && (
              <span className="user-role"> · {session.account.owner ? 'owner' : session.account.role}</span>
            )}
          </span>
          <Button
            variant="secondary"
            onClick={() => {
              void session.logout().then(() => navigate({ to: '/login' }));
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
        ) : session.mfaSetupRequired && pathname !== '/security' ? (
          <section aria-labelledby="mfa-required-heading">
            <h1 id="mfa-required-heading">Two-step sign-in required</h1>
            <p>
              {session.account.name} requires every member to sign in with a second factor. Set up an authenticator app
              or a passkey for your login on the <Link to="/security">Security page</Link>, then log out and sign in
              again with it.
            </p>
          </section>
        ) : (
          <Fragment key={`${session.account.id}:${session.project?.id ?? 'none'}`}>
            <Outlet />
          </Fragment>
        )}
      </main>
    </div>
  );
}

/** The account (a new sign-in with `accountId`) and the platform project (`X-Project-Id`) the pages act in. */
function ContextSwitcher() {
  const session = useSession();
  const [target, setTarget] = useState<string | undefined>();
  const targetName = session.me.memberships.find((membership) => membership.id === target)?.name ?? '';

  return (
    <div className="context">
      {session.me.memberships.length > 0 && (
        <SelectField
          label="Account"
          value={target ?? session.account?.id ?? ''}
          onChange={(event) => {
            const value = event.target.value;
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
        <SelectField
          label="Project"
          value={session.project?.id ?? ''}
          onChange={(event) => session.selectProject(event.target.value)}
        >
          {session.projects.map((project) => (
            <option key={project.id} value={project.id}>
              {project.name}
              {project.isDefault ? ' (default)' : ''}
            </option>
          ))}
        </SelectField>
      )}
      {target && (
        <SwitchAccountForm
          key={target}
          accountId={target}
          accountName={targetName}
          onDone={() => setTarget(undefined)}
          onCancel={() => setTarget(undefined)}
        />
      )}
    </div>
  );
}
