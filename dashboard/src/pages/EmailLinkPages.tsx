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
    <p className="form-error" role="alert">
      This address has no code: open the link from the mail whole (some mail programs cut long links).
    </p>
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
        <p className="notice" role="status">
          Your password is changed. Every session signed in with the old one has ended
          {session ? '' : ': log in with the new one'}.
        </p>
        {session ? (
          <p>
            <Link to="/overview">Go to the overview</Link>
          </p>
        ) : (
          <LoginForm onSignedIn={() => navigate({ to: '/overview' })} />
        )}
      </AuthCard>
    );
  }
  return (
    <AuthCard>
      <form
        aria-labelledby="reset-heading"
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          setMismatch(password !== confirmation);
          if (password === confirmation) void submit.run();
        }}
      >
        <h2 id="reset-heading">Choose a new password</h2>
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
        <Button type="submit" busy={submit.busy} disabled={!token}>
          Change the password
        </Button>
        <p className="muted">
          The link expired? <Link to="/forgot-password">Ask for a new one</Link>.
        </p>
      </form>
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
      <section aria-labelledby="verify-heading">
        <h2 id="verify-heading">Verify your email</h2>
        {!token && <MissingToken />}
        {verified ? (
          <>
            <p className="notice" role="status">
              Your email is verified: you can now invite colleagues and move money.
            </p>
            <p>{session ? <Link to="/overview">Go to the overview</Link> : <Link to="/login">Log in</Link>}</p>
          </>
        ) : (
          <>
            <p>Confirm that this address is yours. The link works once, for 24 hours.</p>
            <FormError error={verify.error} />
            <Button busy={verify.busy} disabled={!token} onClick={() => void verify.run()}>
              Verify my email
            </Button>
          </>
        )}
      </section>
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
        <h2>You are invited</h2>
        {!token && <MissingToken />}
        <p>
          Join the account that invited you: sign up with the address the invitation was sent to, or log in if you
          already have a login.
        </p>
        <div className="radio-row" role="radiogroup" aria-label="How to join">
          <label>
            <input type="radio" name="invitation-kind" checked={kind === 'signup'} onChange={() => setKind('signup')} />{' '}
            I am new here
          </label>
          <label>
            <input type="radio" name="invitation-kind" checked={kind === 'login'} onChange={() => setKind('login')} /> I
            have a login
          </label>
        </div>
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
      <section aria-labelledby="invitation-heading">
        <h2 id="invitation-heading">{joined ? `You joined ${joined.name}` : 'Accept the invitation'}</h2>
        {!token && <MissingToken />}
        {joined ? (
          joined.id === session.account?.id ? (
            <p>
              <Link to="/overview">Go to the overview</Link>
            </p>
          ) : (
            <>
              <p>Open {joined.name} now: a session acts in one account at a time.</p>
              <SwitchAccountForm
                accountId={joined.id}
                accountName={joined.name}
                onDone={() => void navigate({ to: '/overview' })}
              />
              <p className="muted">
                Or stay in {session.account?.name ?? 'your account'}: <Link to="/overview">go to the overview</Link>.
              </p>
            </>
          )
        ) : (
          <>
            <p>
              Signed in as <strong>{session.me.user.email}</strong>. Only the address the invitation was sent to can
              accept it.
            </p>
            <FormError error={accept.error} />
            <div className="actions">
              <Button busy={accept.busy} disabled={!token} onClick={() => void accept.run()}>
                Accept the invitation
              </Button>
              <Button variant="secondary" onClick={() => void session.logout()}>
                Log out to use another login
              </Button>
            </div>
          </>
        )}
      </section>
    </AuthCard>
  );
}
