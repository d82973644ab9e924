import { Alert, Stack } from '@mantine/core';
import { browserSupportsWebAuthn, startAuthentication } from '@simplewebauthn/browser';
import { useState } from 'react';
import { $api, type Schemas } from '../api/client';
import { Button, FormError } from '../ui';
import { promptForPasskey } from './ceremony';

type SignIn = Schemas['SignInResponse'];
type AuthenticationOptions = Parameters<typeof startAuthentication>[0]['optionsJSON'];

/**
 * "Sign in with a passkey": asks the service for a challenge, lets the browser's passkey prompt sign
 * it, and opens a session with the answer (the session cookie; assurance `mfa`, no password asked).
 * Rendered by the sign-in form; `onSignedIn` gets the service's answer.
 */
export function PasskeySignIn({ onSignedIn, accountId }: { onSignedIn: (answer: SignIn) => void; accountId?: string }) {
  const options = $api.useMutation('post', '/api/v1/sessions/passkey/options');
  const signIn = $api.useMutation('post', '/api/v1/sessions/passkey');
  const [problem, setProblem] = useState<string | undefined>();
  const [prompting, setPrompting] = useState(false);

  if (!browserSupportsWebAuthn()) return null;

  async function run() {
    setProblem(undefined);
    signIn.reset();
    const credential = await promptForPasskey(
      () => options.mutateAsync({}),
      async (optionsJSON: AuthenticationOptions) => {
        setPrompting(true);
        try {
          return await startAuthentication({ optionsJSON });
        } finally {
          setPrompting(false);
        }
      },
      setProblem,
    );
    if (!credential) return;
    signIn.mutate(
      {
        body: {
          credential: credential as Schemas['PasskeySignInDto']['credential'],
          ...(accountId ? { accountId } : {}),
        },
      },
      { onSuccess: onSignedIn },
    );
  }

  return (
    <Stack gap="xs" align="flex-start">
      <Button variant="secondary" busy={options.isPending || prompting || signIn.isPending} onClick={() => void run()}>
        Sign in with a passkey
      </Button>
      {problem && (
        <Alert color="red" variant="light" role="alert" p="sm">
          {problem}
        </Alert>
      )}
      <FormError error={options.error ?? signIn.error} />
    </Stack>
  );
}
