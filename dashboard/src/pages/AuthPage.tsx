import { useEffect, useState, type FormEvent } from 'react';
import { api, call, type Schemas } from '../api/client';
import { useAction } from '../hooks';
import { Link, useSearch } from '@tanstack/react-router';
import { PRODUCT } from '../product';
import { useSessionControl } from '../session';
import { Button, Field, fieldError, FormError, SelectField } from '../ui';

type SignupBody = Schemas['SignupDto'];

/** Log in, or sign up: a new account of one's own, or joining one with an invitation token. */
export function AuthPage({ signingUp }: { signingUp: boolean }) {
  // The invitation link an admin passed on: `/signup?invitation=inv_...`.
  const { invitation } = useSearch({ strict: false });
  useEffect(() => {
    document.title = `${signingUp ? 'Sign up' : 'Log in'} · ${PRODUCT}`;
  }, [signingUp]);
  return (
    <main className="auth" id="main">
      <div className="auth-card">
        <h1>{PRODUCT}</h1>
        <p className="muted">Customers, cards and payments; channels, projects and their content; the team and the API keys of an account.</p>
        <nav className="tabs" aria-label="Log in or sign up">
          <Link to="/login">Log in</Link>
          <Link to="/signup">Sign up</Link>
        </nav>
        {signingUp ? <SignupForm invitation={typeof invitation === 'string' ? invitation : ''} /> : <LoginForm />}
      </div>
    </main>
  );
}

function LoginForm() {
  const { login } = useSessionControl();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const submit = useAction(() => login(email, password));
  return (
    <form
      aria-labelledby="login-heading"
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        void submit.run();
      }}
    >
      <h2 id="login-heading">Log in</h2>
      <Field label="Email" type="email" autoComplete="username" required value={email} onChange={(event) => setEmail(event.target.value)} error={fieldError(submit.error, 'email')} />
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
      <p className="muted">
        New here? <Link to="/signup">Create an account</Link>. Invited? Sign up with the token you were given.
      </p>
    </form>
  );
}

function SignupForm({ invitation }: { invitation: string }) {
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
  const set = (name: keyof typeof form) => (event: { target: { value: string } }) => setForm({ ...form, [name]: event.target.value });

  const submit = useAction(async () => {
    const common = { firstName: form.firstName, lastName: form.lastName, email: form.email, password: form.password };
    const body: SignupBody = withInvitation
      ? { ...common, invitationToken: form.invitationToken.trim() }
      : { ...common, role: form.role, accountType: form.accountType, ...(form.accountName.trim() ? { accountName: form.accountName.trim() } : {}) };
    await call(api.POST('/api/v1/singup', { body }));
    await login(form.email, form.password);
  });
  const error = (...fields: string[]) => fieldError(submit.error, ...fields);

  return (
    <form
      aria-labelledby="signup-heading"
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        void submit.run();
      }}
    >
      <h2 id="signup-heading">Sign up</h2>
      <div className="grid-2">
        <Field label="First name" autoComplete="given-name" required value={form.firstName} onChange={set('firstName')} error={error('firstName')} />
        <Field label="Last name" autoComplete="family-name" required value={form.lastName} onChange={set('lastName')} error={error('lastName')} />
      </div>
      <Field label="Email" type="email" autoComplete="email" required value={form.email} onChange={set('email')} error={error('email')} />
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
      <fieldset>
        <legend>Account</legend>
        <div className="radio-row">
          <label>
            <input type="radio" name="signup-kind" checked={!withInvitation} onChange={() => setWithInvitation(false)} /> Create a new account
          </label>
          <label>
            <input type="radio" name="signup-kind" checked={withInvitation} onChange={() => setWithInvitation(true)} /> Join with an invitation
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
              <SelectField label="Account type" value={form.accountType} onChange={set('accountType')} error={error('accountType')}>
                <option value="company">Company</option>
                <option value="developer">Developer</option>
              </SelectField>
              <SelectField label="Your role" value={form.role} onChange={set('role')} error={error('role')} hint="You own the account whatever the role.">
                <option value="admin">Admin</option>
                <option value="manager">Manager</option>
                <option value="developer">Developer</option>
              </SelectField>
            </div>
            <Field
              label="Account name"
              value={form.accountName}
              onChange={set('accountName')}
              placeholder={form.firstName || form.lastName ? `${form.firstName} ${form.lastName}`.trim() : 'Analytical Engines Ltd'}
              hint="Optional: your name when left empty."
              error={error('accountName')}
            />
          </>
        )}
      </fieldset>
      <FormError error={submit.error} fields={['firstName', 'lastName', 'email', 'password', 'invitationToken', 'accountType', 'accountName', 'role']} />
      <Button type="submit" busy={submit.busy}>
        Sign up
      </Button>
      <p className="muted">
        Already have a login? <Link to="/login">Log in</Link>.
      </p>
    </form>
  );
}
