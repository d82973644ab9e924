import { Link, useSearch } from '@tanstack/react-router';
import { useEffect, useState, type ReactNode } from 'react';
import { api, call, type Schemas } from '../api/client';
import { SecondFactorField, toFactor, type FactorKind } from '../auth/SecondFactorField';
import { runOnSubmit, useAction } from '../hooks';
import { PasskeySignIn } from '../passkeys/PasskeySignIn';
import { PRODUCT } from '../product';
import { needsSecondFactor, useSessionControl } from '../session';
import { Button, Field, fieldError, FormError, SelectField } from '../ui';

type SignupBody = Schemas['SignupDto'];

/** The signed-out pages: log in (and its second step), sign up, and ask for a password reset. */
export function AuthPage({ mode }: { mode: 'login' | 'signup' | 'forgot' }) {
  // The invitation link an admin passed on: `/signup?invitation=inv_...`.
  const { invitation } = useSearch({ strict: false });
  const { notice } = useSessionControl();
  useEffect(() => {
    document.title = `${mode === 'signup' ? 'Sign up' : mode === 'forgot' ? 'Reset your password' : 'Log in'} · ${PRODUCT}`;
  }, [mode]);
  return (
    <AuthCard>
      <nav className="tabs" aria-label="Log in or sign up">
        <Link to="/login">Log in</Link>
        <Link to="/signup">Sign up</Link>
      </nav>
      {notice && mode === 'login' && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {mode === 'signup' ? (
        <SignupForm invitation={typeof invitation === 'string' ? invitation : ''} />
      ) : mode === 'forgot' ? (
        <ForgotPasswordForm />
      ) : (
        <LoginForm />
      )}
    </AuthCard>
  );
}

/** The frame of every page shown without the dashboard's navigation. */
export function AuthCard({ children }: { children: ReactNode }) {
  return (
    <main className="auth" id="main">
      <div className="auth-card">
        <h1>{PRODUCT}</h1>
        <p className="muted">
          Customers, cards and payments; channels, projects and their content; the team and the API keys of an account.
        </p>
        {children}
      </div>
    </main>
  );
}

/**
 * Email and password, then, for a user with a second factor (the API answers 401 `mfa_required`), a
 * second step asking for the authenticator code or a recovery code. `onSignedIn` runs once the
 * session is open (a page shown signed in or not moves on there).
 */
export function LoginForm({
  heading = 'Log in',
  onSignedIn,
}: {
  heading?: string;
  onSignedIn?: () => Promise<void> | void;
}) {
  const { login, signedIn } = useSessionControl();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [secondStep, setSecondStep] = useState(false);
  const [kind, setKind] = useState<FactorKind>('totp');
  const [code, setCode] = useState('');
  const submit = useAction(async () => {
    try {
      await login({ email, password, ...(secondStep ? { factor: toFactor(kind, code) } : {}) });
    } catch (error) {
      if (!secondStep && needsSecondFactor(error)) {
        setSecondStep(true);
        return false;
      }
      throw error;
    }
    await onSignedIn?.();
    return true;
  });
  return (
    <form aria-labelledby="login-heading" onSubmit={runOnSubmit(submit.run)}>
      <h2 id="login-heading">{secondStep ? 'Two-step sign-in' : heading}</h2>
      {secondStep ? (
        <>
          <p className="muted">
            Signing in as <strong>{email}</strong>. Your account has two-step sign-in on: prove it with your second
            factor.
          </p>
          <SecondFactorField
            kind={kind}
            onKind={setKind}
            value={code}
            onChange={setCode}
            error={
              submit.error?.status === 401 ? submit.error.message : fieldError(submit.error, 'totp', 'recoveryCode')
            }
          />
          {submit.error?.status !== 401 && <FormError error={submit.error} fields={['totp', 'recoveryCode']} />}
          <div className="actions">
            <Button type="submit" busy={submit.busy}>
              Verify
            </Button>
            <Button
              variant="secondary"
              onClick={() => {
                setSecondStep(false);
                setCode('');
                setPassword('');
                submit.reset();
              }}
            >
              Start over
            </Button>
          </div>
        </>
      ) : (
        <>
          <Field
            label="Email"
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
            error={fieldError(submit.error, 'email')}
          />
          <Field
            label="Password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            error={fieldError(submit.error, 'password')}
          />
          <FormError error={submit.error} fields={['email', 'password']} />
          <Button type="submit" busy={submit.busy}>
            Log in
          </Button>
          <PasskeySignIn onSignedIn={() => void signedIn().then(() => onSignedIn?.())} />
          <p className="muted">
            <Link to="/forgot-password">Forgot your password?</Link>
          </p>
          <p className="muted">
            New here? <Link to="/signup">Create an account</Link>. Invited? Open the link in the invitation mail.
          </p>
        </>
      )}
    </form>
  );
}

/** Asks for a reset link: the same confirmation whether the email is a user's or not, as the API answers. */
function ForgotPasswordForm() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const submit = useAction(async () => {
    await call(api.POST('/api/v1/password-resets', { body: { email } }));
    setSent(true);
  });
  if (sent) {
    return (
      <section aria-labelledby="forgot-heading">
        <h2 id="forgot-heading">Check your mail</h2>
        <p role="status">
          If {email} belongs to a user, a link to choose a new password is on its way. It works once, for one hour.
        </p>
        <p>
          <Link to="/login">Back to log in</Link>
        </p>
      </section>
    );
  }
  return (
    <form aria-labelledby="forgot-heading" onSubmit={runOnSubmit(submit.run)}>
      <h2 id="forgot-heading">Reset your password</h2>
      <p className="muted">We mail you a link to choose a new password.</p>
      <Field
        label="Email"
        type="email"
        autoComplete="username"
        required
        value={email}
        onChange={(event) => setEmail(event.target.value)}
        error={fieldError(submit.error, 'email')}
      />
      <FormError error={submit.error} fields={['email']} />
      <Button type="submit" busy={submit.busy}>
        Send the link
      </Button>
      <p className="muted">
        Remembered it? <Link to="/login">Log in</Link>.
      </p>
    </form>
  );
}

/** A new login: an account of one's own, or (with an invitation's token) a member of the inviting account. */
export function SignupForm({
  invitation,
  fixedInvitation = false,
  onSignedUp,
}: {
  invitation: string;
  fixedInvitation?: boolean;
  onSignedUp?: () => void;
}) {
  const { login } = useSessionControl();
  const [form, setForm] = useState({
    firstName: '',
    lastName: '',
    email: '',
    password: '',
    accountType: 'company' as NonNullable<SignupBody['accountType']>,
    accountName: '',
    role: 'admin' as NonNullable<SignupBody['role']>,
    invitationToken: invitation,
  });
  const [withInvitation, setWithInvitation] = useState(Boolean(invitation));
  const set = (name: keyof typeof form) => (event: { target: { value: string } }) =>
    setForm({ ...form, [name]: event.target.value });

  const submit = useAction(async () => {
    const common = { firstName: form.firstName, lastName: form.lastName, email: form.email, password: form.password };
    const body: SignupBody = withInvitation
      ? { ...common, invitationToken: form.invitationToken.trim() }
      : {
          ...common,
          role: form.role,
          accountType: form.accountType,
          ...(form.accountName.trim() ? { accountName: form.accountName.trim() } : {}),
        };
    await call(api.POST('/api/v1/singup', { body }));
    // The answer's bearer token is for scripts: the dashboard opens a cookie session instead.
    await login({ email: form.email, password: form.password });
    onSignedUp?.();
  });
  const error = (...fields: string[]) => fieldError(submit.error, ...fields);

  return (
    <form aria-labelledby="signup-heading" onSubmit={runOnSubmit(submit.run)}>
      <h2 id="signup-heading">Sign up</h2>
      <div className="grid-2">
        <Field
          label="First name"
          autoComplete="given-name"
          required
          value={form.firstName}
          onChange={set('firstName')}
          error={error('firstName')}
        />
        <Field
          label="Last name"
          autoComplete="family-name"
          required
          value={form.lastName}
          onChange={set('lastName')}
          error={error('lastName')}
        />
      </div>
      <Field
        label="Email"
        type="email"
        autoComplete="email"
        required
        value={form.email}
        onChange={set('email')}
        error={error('email')}
      />
      <Field
        label="Password"
        type="password"
        autoComplete="new-password"
        required
        value={form.password}
        onChange={set('password')}
        hint="At least 8 characters."
        error={error('password')}
      />
      {!fixedInvitation && (
        <fieldset>
          <legend>Account</legend>
          <div className="radio-row">
            <label>
              <input
                type="radio"
                name="signup-kind"
                checked={!withInvitation}
                onChange={() => setWithInvitation(false)}
              />{' '}
              Create a new account
            </label>
            <label>
              <input
                type="radio"
                name="signup-kind"
                checked={withInvitation}
                onChange={() => setWithInvitation(true)}
              />{' '}
              Join with an invitation
            </label>
          </div>
          {withInvitation ? (
            <Field
              label="Invitation token"
              required
              className="mono"
              value={form.invitationToken}
              onChange={set('invitationToken')}
              hint="The token an admin of the account passed on to you. Use the email address the invitation was sent for."
              error={error('invitationToken')}
            />
          ) : (
            <>
              <div className="grid-2">
                <SelectField
                  label="Account type"
                  value={form.accountType}
                  onChange={set('accountType')}
                  error={error('accountType')}
                >
                  <option value="company">Company</option>
                  <option value="developer">Developer</option>
                </SelectField>
                <SelectField
                  label="Your role"
                  value={form.role}
                  onChange={set('role')}
                  error={error('role')}
                  hint="You own the account whatever the role."
                >
                  <option value="admin">Admin</option>
                  <option value="manager">Manager</option>
                  <option value="developer">Developer</option>
                </SelectField>
              </div>
              <Field
                label="Account name"
                value={form.accountName}
                onChange={set('accountName')}
                placeholder={
                  form.firstName || form.lastName
                    ? `${form.firstName} ${form.lastName}`.trim()
                    : 'Analytical Engines Ltd'
                }
                hint="Optional: your name when left empty."
                error={error('accountName')}
              />
            </>
          )}
        </fieldset>
      )}
      <FormError
        error={submit.error}
        fields={['firstName', 'lastName', 'email', 'password', 'invitationToken', 'accountType', 'accountName', 'role']}
      />
      <Button type="submit" busy={submit.busy}>
        Sign up
      </Button>
      <p className="muted">
        Already have a login? <Link to="/login">Log in</Link>.
      </p>
    </form>
  );
}
