import { Alert, Anchor, Group, Radio, Stack, Text, Title } from '@mantine/core';
import { Link, useNavigate, useRouterState } from '@tanstack/react-router';
import { useEffect, useState, type FormEvent } from 'react';
import { api, call, type Schemas } from '../api/client';
import { SwitchAccountForm } from '../auth/SwitchAccountForm';
import { useAction } from '../hooks';
import { PRODUCT } from '../product';
import { useSessionControl } from '../session';
import { Button, Field, fieldError, FormError, NewPasswordField } from '../ui';
import { AuthCard, LoginForm, SignupForm } from './AuthPage';

/**
 * The pages the service's mails link to, `<PUBLIC_URL>/dashboard/<page>?token=<code>`: each reads the
 * one-time code from its address and posts it to the API. They show whether or not the browser is
 * signed in.
 */

/** The `token` of the page's address, as the mail wrote it. */
function useLinkToken(): string {
  const searchStr = useRouterState({ select: (state) => state.location.searchStr });
  return new URLSearchParams(searchStr).get('token') ?? '';
}

function useTitle(title: string) {
  useEffect(() => {
    document.title = `${title} · ${PRODUCT}`;
  }, [title]);
}

function MissingToken() {
  return (
    <Alert color="red" variant="light" role="alert" p="sm">
      This address has no code: open the link from the mail whole (some mail programs cut long links).
    </Alert>
  );
}

/** `/dashboard/reset-password?token=...`: a new password, then the log-in form (every session ended with the old password). */
export function ResetPasswordPage() {
  useTitle('Choose a new password');
  const token = useLinkToken();
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const [done, setDone] = useState(false);
  const submit = useAction(async () => {
    await call(api.POST('/api/v1/password-resets/{code}', { params: { path: { code: token } }, body: { password } }));
    setDone(true);
  });
  const { session } = useSessionControl();
  const navigate = useNavigate();
  if (done) {
    return (
      <AuthCard>
        <Alert color="green" variant="light" role="status" p="sm">
          Your password is changed. Every session signed in with the old one has ended
          {session ? '' : ': log in with the new one'}.
        </Alert>
        {session ? (
          <Text>
            <Anchor component={Link} to="/overview">
              Go to the overview
            </Anchor>
          </Text>
        ) : (
          <LoginForm onSignedIn={() => navigate({ to: '/overview' })} />
        )}
      </AuthCard>
    );
  }
  return (
    <AuthCard>
      <Stack
        component="form"
        gap="sm"
        aria-labelledby="reset-heading"
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          setMismatch(password !== confirmation);
          if (password === confirmation) void submit.run();
        }}
      >
        <Title order={2} size="h3" id="reset-heading">
          Choose a new password
        </Title>
        {!token && <MissingToken />}
        <NewPasswordField
          label="New password"
          value={password}
          onChange={(event) => setPassword(event.target.value)}
          hint="At least 8 characters. Every other session of yours ends."
          error={fieldError(submit.error, 'password')}
        />
        <Field
          label="New password again"
          type="password"
          autoComplete="new-password"
          required
          value={confirmation}
          onChange={(event) => setConfirmation(event.target.value)}
          error={mismatch ? 'The two passwords differ.' : undefined}
        />
        <FormError error={submit.error} fields={['password']} />
        <Group>
          <Button type="submit" busy={submit.busy} disabled={!token}>
            Change the password
          </Button>
        </Group>
        <Text size="sm" c="dimmed">
          The link expired?{' '}
          <Anchor component={Link} to="/forgot-password">
            Ask for a new one
          </Anchor>
          .
        </Text>
      </Stack>
    </AuthCard>
  );
}

/** `/dashboard/verify-email?token=...`: one button, so a mail scanner opening the link verifies nothing. */
export function VerifyEmailPage() {
  useTitle('Verify your email');
  const token = useLinkToken();
  const { session } = useSessionControl();
  const [verified, setVerified] = useState(false);
  const verify = useAction(
    async () => {
      await call(api.POST('/api/v1/email-verifications/{code}', { params: { path: { code: token } } }));
      setVerified(true);
    },
    { invalidates: ['/api/v1/me'] },
  );
  return (
    <AuthCard>
      <Stack component="section" gap="sm" aria-labelledby="verify-heading">
        <Title order={2} size="h3" id="verify-heading">
          Verify your email
        </Title>
        {!token && <MissingToken />}
        {verified ? (
          <>
            <Alert color="green" variant="light" role="status" p="sm">
              Your email is verified: you can now invite colleagues and move money.
            </Alert>
            <Text>
              {session ? (
                <Anchor component={Link} to="/overview">
                  Go to the overview
                </Anchor>
              ) : (
                <Anchor component={Link} to="/login">
                  Log in
                </Anchor>
              )}
            </Text>
          </>
        ) : (
          <>
            <Text>Confirm that this address is yours. The link works once, for 24 hours.</Text>
            <FormError error={verify.error} />
            <Group>
              <Button busy={verify.busy} disabled={!token} onClick={() => void verify.run()}>
                Verify my email
              </Button>
            </Group>
          </>
        )}
      </Stack>
    </AuthCard>
  );
}

type Joined = Schemas['AccountView'];

/**
 * `/dashboard/invitation?token=...`: signed out, sign up with the invitation (the new login belongs to
 * the inviting account) or log in first; signed in, accept it and open the inviting account.
 */
export function InvitationPage() {
  useTitle('Your invitation');
  const token = useLinkToken();
  const { session } = useSessionControl();
  const [kind, setKind] = useState<'signup' | 'login'>('signup');
  const [joined, setJoined] = useState<Joined | undefined>();
  const navigate = useNavigate();
  const accept = useAction(
    async () => {
      const answer = await call(api.POST('/api/v1/invitations/accept', { body: { token } }));
      setJoined(answer.data);
    },
    { invalidates: ['/api/v1/me'] },
  );

  if (!session) {
    return (
      <AuthCard>
        <Title order={2} size="h3">
          You are invited
        </Title>
        {!token && <MissingToken />}
        <Text>
          Join the account that invited you: sign up with the address the invitation was sent to, or log in if you
          already have a login.
        </Text>
        <Radio.Group
          name="invitation-kind"
          value={kind}
          onChange={(value) => setKind(value as 'signup' | 'login')}
          aria-label="How to join"
        >
          <Group gap="lg">
            <Radio value="signup" label="I am new here" />
            <Radio value="login" label="I have a login" />
          </Group>
        </Radio.Group>
        {kind === 'signup' ? (
          <SignupForm invitation={token} fixedInvitation onSignedUp={() => void navigate({ to: '/overview' })} />
        ) : (
          <LoginForm heading="Log in to accept" />
        )}
      </AuthCard>
    );
  }

  return (
    <AuthCard>
      <Stack component="section" gap="sm" aria-labelledby="invitation-heading">
        <Title order={2} size="h3" id="invitation-heading">
          {joined ? `You joined ${joined.name}` : 'Accept the invitation'}
        </Title>
        {!token && <MissingToken />}
        {joined ? (
          joined.id === session.account?.id ? (
            <Text>
              <Anchor component={Link} to="/overview">
                Go to the overview
              </Anchor>
            </Text>
          ) : (
            <>
              <Text>Open {joined.name} now: a session acts in one account at a time.</Text>
              <SwitchAccountForm
                accountId={joined.id}
                accountName={joined.name}
                onDone={() => void navigate({ to: '/overview' })}
              />
              <Text size="sm" c="dimmed">
                Or stay in {session.account?.name ?? 'your account'}:{' '}
                <Anchor component={Link} to="/overview">
                  go to the overview
                </Anchor>
                .
              </Text>
            </>
          )
        ) : (
          <>
            <Text>
              Signed in as <strong>{session.me.user.email}</strong>. Only the address the invitation was sent to can
              accept it.
            </Text>
            <FormError error={accept.error} />
            <Group gap="sm">
              <Button busy={accept.busy} disabled={!token} onClick={() => void accept.run()}>
                Accept the invitation
              </Button>
              <Button variant="secondary" onClick={() => void session.logout()}>
                Log out to use another login
              </Button>
            </Group>
          </>
        )}
      </Stack>
    </AuthCard>
  );
}
