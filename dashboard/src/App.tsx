import {
  ActionIcon,
  Anchor,
  AppShell,
  Burger,
  Center,
  Group,
  Modal,
  NativeSelect,
  NavLink,
  Progress,
  Stack,
  Text,
  Title,
  Tooltip,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Link, Outlet, useNavigate, useRouterState, type LinkProps } from '@tanstack/react-router';
import { Fragment, useEffect, useId, useRef, useState, type ComponentType, type ReactNode } from 'react';
import { onInFlightChange } from './api/client';
import { StepUpDialog } from './auth/StepUpDialog';
import { SwitchAccountForm } from './auth/SwitchAccountForm';
import { AuthPage } from './pages/AuthPage';
import { InvitationPage, ResetPasswordPage, VerifyEmailPage } from './pages/EmailLinkPages';
import { PRODUCT } from './product';
import { NoAccountPage } from './pages/NoAccountPage';
import { SessionProvider, useSession, useSessionControl } from './session';
import { VerifyEmailBanner } from './components/resend-verification';
import { Button, Spinner } from './ui';

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

/** A thin bar at the top of the window while any request is under way (decoration: the pages say busy themselves). */
function ProgressBar() {
  const [count, setCount] = useState(0);
  useEffect(() => onInFlightChange(setCount), []);
  if (count === 0) return null;
  return (
    <Progress
      className="progress-active"
      aria-hidden="true"
      value={100}
      animated
      size={3}
      radius={0}
      pos="fixed"
      top={0}
      left={0}
      right={0}
      style={{ zIndex: 1000 }}
    />
  );
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
        <Center component="main" mih="100vh" aria-busy="true">
          <Spinner label="Restoring your session" />
        </Center>
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
    <Stack component="section" aria-labelledby="not-found-heading">
      <Title order={1} id="not-found-heading">
        Page not found
      </Title>
      <Text>
        The dashboard has no page at this address. Go to the{' '}
        <Anchor component={Link} to="/overview">
          overview
        </Anchor>
        .
      </Text>
    </Stack>
  );
}

/** Light or dark: the system's until the person picks one here (Mantine keeps the choice in local storage). */
function ColourSchemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const computed = useComputedColorScheme('light', { getInitialValueInEffect: true });
  const next = computed === 'dark' ? 'light' : 'dark';
  return (
    <Tooltip label={`Use the ${next} theme`}>
      <ActionIcon variant="default" size="lg" aria-label={`Use the ${next} theme`} onClick={() => setColorScheme(next)}>
        <span aria-hidden="true">{computed === 'dark' ? '\u2600' : '\u263E'}</span>
      </ActionIcon>
    </Tooltip>
  );
}

/**
 * The signed-in frame: a 56 px header (the product, the account and project switchers on one row,
 * the person, the theme, log out), the sections in a navbar (a drawer on a narrow screen), and the
 * page. A signed-in user whose email is not verified sees a banner with a Resend button above it.
 */
function Shell({ pathname }: { pathname: string }) {
  const session = useSession();
  const navigate = useNavigate();
  const [navOpened, nav] = useDisclosure(false);
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
    nav.close();
    mainRef.current?.focus();
  }, [section, nav]);

  const { user } = session.me;
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={session.account ? { width: 220, breakpoint: 'sm', collapsed: { mobile: !navOpened } } : undefined}
      padding="lg"
    >
      <a className="skip-link" href="#main" onClick={(event) => (event.preventDefault(), mainRef.current?.focus())}>
        Skip to content
      </a>
      <AppShell.Header>
        <Group h="100%" px="md" gap="md" wrap="nowrap" justify="space-between">
          <Group gap="sm" wrap="nowrap">
            {session.account && (
              <Burger
                opened={navOpened}
                onClick={nav.toggle}
                hiddenFrom="sm"
                size="sm"
                aria-label={navOpened ? 'Close the sections' : 'Open the sections'}
              />
            )}
            <Text fw={700} size="md" style={{ whiteSpace: 'nowrap' }}>
              {PRODUCT}
              <Text span c="dimmed" size="sm" visibleFrom="xl">
                {' '}
                · finance and content
              </Text>
            </Text>
          </Group>
          <ContextSwitcher />
          <Group gap="sm" wrap="nowrap">
            <Text size="sm" visibleFrom="md" style={{ whiteSpace: 'nowrap' }}>
              {user.firstName} {user.lastName}
              {session.account && (
                <Text span c="dimmed" size="sm">
                  {' '}
                  · {session.account.owner ? 'owner' : session.account.role}
                </Text>
              )}
            </Text>
            <ColourSchemeToggle />
            <Button
              variant="secondary"
              onClick={() => {
                void session.logout().then(() => navigate({ to: '/login' }));
              }}
            >
              Log out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      {session.account && (
        <AppShell.Navbar p="xs" aria-label="Sections">
          <Stack gap={2}>
            {SECTIONS.filter((candidate) => !candidate.adminOnly || session.isAdmin).map((candidate) => (
              // The router's Link marks aria-current="page" while its section is shown.
              <NavLink
                key={candidate.to}
                component={Link}
                to={candidate.to}
                label={candidate.label}
                active={candidate.to === current?.to}
                variant="filled"
              />
            ))}
          </Stack>
        </AppShell.Navbar>
      )}
      <AppShell.Main id="main" ref={mainRef} tabIndex={-1} style={{ outline: 'none' }}>
        <Stack gap="md" maw={1200}>
          {!user.emailVerifiedAt && <VerifyEmailBanner email={user.email} />}
          {/* Keyed by account and project: switching either starts the page afresh. */}
          {!session.account ? (
            <NoAccountPage />
          ) : session.mfaSetupRequired && pathname !== '/security' ? (
            <Stack component="section" aria-labelledby="mfa-required-heading">
              <Title order={1} id="mfa-required-heading">
                Two-step sign-in required
              </Title>
              <Text>
                {session.account.name} requires every member to sign in with a second factor. Set up an authenticator
                app or a passkey for your login on the{' '}
                <Anchor component={Link} to="/security">
                  Security page
                </Anchor>
                , then log out and sign in again with it.
              </Text>
            </Stack>
          ) : (
            <Fragment key={`${session.account.id}:${session.project?.id ?? 'none'}`}>
              <Outlet />
            </Fragment>
          )}
        </Stack>
      </AppShell.Main>
    </AppShell>
  );
}

/** A select of the header: its label beside it, so both switchers keep to the header's one row. */
function HeaderSelect({
  label,
  value,
  onChange,
  children,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <Group gap={6} wrap="nowrap">
      <Text component="label" htmlFor={id} size="sm" c="dimmed">
        {label}
      </Text>
      <NativeSelect id={id} size="sm" w={250} value={value} onChange={(event) => onChange(event.currentTarget.value)}>
        {children}
      </NativeSelect>
    </Group>
  );
}

/** The account (a new sign-in with `accountId`) and the platform project (`X-Project-Id`) the pages act in. */
function ContextSwitcher() {
  const session = useSession();
  const [target, setTarget] = useState<string | undefined>();
  const targetName = session.me.memberships.find((membership) => membership.id === target)?.name ?? '';

  return (
    <Group gap="md" wrap="nowrap" visibleFrom="sm">
      {session.me.memberships.length > 0 && (
        <HeaderSelect
          label="Account"
          value={target ?? session.account?.id ?? ''}
          onChange={(value) => setTarget(value === session.account?.id ? undefined : value)}
        >
          {session.me.memberships.map((membership) => (
            <option key={membership.id} value={membership.id}>
              {membership.name} ({membership.owner ? 'owner' : membership.role})
            </option>
          ))}
        </HeaderSelect>
      )}
      {session.account && session.projects.length > 0 && (
        <HeaderSelect label="Project" value={session.project?.id ?? ''} onChange={session.selectProject}>
          {session.projects.map((project) => (
            <option key={project.id} value={project.id}>
              {project.name}
              {project.isDefault ? ' (default)' : ''}
            </option>
          ))}
        </HeaderSelect>
      )}
      <Modal opened={target !== undefined} onClose={() => setTarget(undefined)} title={`Switch to ${targetName}`}>
        {target && (
          <SwitchAccountForm
            key={target}
            accountId={target}
            accountName={targetName}
            onDone={() => setTarget(undefined)}
            onCancel={() => setTarget(undefined)}
          />
        )}
      </Modal>
    </Group>
  );
}
