import { Alert, Anchor, Center, Fieldset, Group, Paper, Radio, SimpleGrid, Stack, Text, Title } from '@mantine/core';
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
      <Group component="nav" aria-label="Log in or sign up" gap="lg">
        <Anchor component={Link} to="/login" fw={mode === 'login' ? 700 : 400}>
          Log in
        </Anchor>
        <Anchor component={Link} to="/signup" fw={mode === 'signup' ? 700 : 400}>
          Sign up
        </Anchor>
      </Group>
      {notice && mode === 'login' && (
        <Alert color="blue" variant="light" role="status" p="sm">
          {notice}
        </Alert>
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
    <Center component="main" id="main" mih="100vh" p="md" bg="var(--mantine-color-body)">
      <Paper withBorder shadow="sm" radius="md" p="xl" w="100%" maw={480}>
        <Stack gap="md">
          <Title order={1} size="h2">
            {PRODUCT}
          </Title>
          <Text c="dimmed" size="sm">
            Customers, cards and payments; channels, projects and their content; the team and the API keys of an
            account.
          </Text>
          {children}
        </Stack>
      </Paper>
    </Center>
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
    <Stack component="form" gap="sm" aria-labelledby="login-heading" onSubmit={runOnSubmit(submit.run)}>
      <Title order={2} size="h3" id="login-heading">
        {secondStep ? 'Two-step sign-in' : heading}
      </Title>
      {secondStep ? (
        <>
          <Text c="dimmed" size="sm">
            Signing in as <strong>{email}</strong>. Your account has two-step sign-in on: prove it with your second
            factor.
          </Text>
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
          <Group gap="sm">
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
          </Group>
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
          <Group gap="sm">
            <Button type="submit" busy={submit.busy}>
              Log in
            </Button>
          </Group>
          <PasskeySignIn onSignedIn={() => void signedIn().then(() => onSignedIn?.())} />
          <Text size="sm">
            <Anchor component={Link} to="/forgot-password">
              Forgot your password?
            </Anchor>
          </Text>
          <Text size="sm" c="dimmed">
            New here?{' '}
            <Anchor component={Link} to="/signup">
              Create an account
            </Anchor>
            . Invited? Open the link in the invitation mail.
          </Text>
        </>
      )}
    </Stack>
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
      <Stack component="section" gap="sm" aria-labelledby="forgot-heading">
        <Title order={2} size="h3" id="forgot-heading">
          Check your mail
        </Title>
        <Text role="status">
          If {email} belongs to a user, a link to choose a new password is on its way. It works once, for one hour.
        </Text>
        <Text>
          <Anchor component={Link} to="/login">
            Back to log in
          </Anchor>
        </Text>
      </Stack>
    );
  }
  return (
    <Stack component="form" gap="sm" aria-labelledby="forgot-heading" onSubmit={runOnSubmit(submit.run)}>
      <Title order={2} size="h3" id="forgot-heading">
        Reset your password
      </Title>
      <Text c="dimmed" size="sm">
        We mail you a link to choose a new password.
      </Text>
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
      <Group>
        <Button type="submit" busy={submit.busy}>
          Send the link
        </Button>
      </Group>
      <Text size="sm" c="dimmed">
        Remembered it?{' '}
        <Anchor component={Link} to="/login">
          Log in
        </Anchor>
        .
      </Text>
    </Stack>
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
          // The new account is the person's own whatever the role: no choice to offer.
          role: 'admin',
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
    <Stack component="form" gap="sm" aria-labelledby="signup-heading" onSubmit={runOnSubmit(submit.run)}>
      <Title order={2} size="h3" id="signup-heading">
        Sign up
      </Title>
      <SimpleGrid cols={2} spacing="sm">
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
      </SimpleGrid>
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
        <Fieldset legend="Account" variant="unstyled">
          <Radio.Group
            name="signup-kind"
            value={withInvitation ? 'invitation' : 'new'}
            onChange={(value) => setWithInvitation(value === 'invitation')}
            aria-label="Account"
            mb="sm"
          >
            <Group gap="lg" mt={4}>
              <Radio value="new" label="Create a new account" />
              <Radio value="invitation" label="Join with an invitation" />
            </Group>
          </Radio.Group>
          {withInvitation ? (
            <Field
              label="Invitation token"
              required
              value={form.invitationToken}
              onChange={set('invitationToken')}
              hint="The token an admin of the account passed on to you. Use the email address the invitation was sent for."
              error={error('invitationToken')}
            />
          ) : (
            <>
              <SimpleGrid cols={2} spacing="sm">
                <SelectField
                  label="Account type"
                  value={form.accountType}
                  onChange={set('accountType')}
                  error={error('accountType')}
                >
                  <option value="company">Company</option>
                  <option value="developer">Developer</option>
                </SelectField>
              </SimpleGrid>
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
        </Fieldset>
      )}
      <FormError
        error={submit.error}
        fields={['firstName', 'lastName', 'email', 'password', 'invitationToken', 'accountType', 'accountName', 'role']}
      />
      <Group>
        <Button type="submit" busy={submit.busy}>
          Sign up
        </Button>
      </Group>
      <Text size="sm" c="dimmed">
        Already have a login?{' '}
        <Anchor component={Link} to="/login">
          Log in
        </Anchor>
        .
      </Text>
    </Stack>
  );
}
