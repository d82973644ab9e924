import { browserSupportsWebAuthn, startAuthentication, WebAuthnError } from '@simplewebauthn/browser';
import { useState } from 'react';
import { $api, type Schemas } from '../api/client';
import { Button, FormError } from '../ui';

type SignIn = Schemas['SignInResponse'];

/** What went wrong in the browser's part of the ceremony, in words (the service's refusals come as an ApiError). */
function ceremonyProblem(error: unknown): string {
  if (error instanceof WebAuthnError && error.code === 'ERROR_CEREMONY_ABORTED') return 'The passkey prompt was closed.';
  if (error instanceof Error && error.name === 'NotAllowedError') return 'The passkey prompt was closed or timed out.';
  return error instanceof Error ? error.message : 'The passkey could not be used.';
}

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
    let optionsJSON;
    try {
      optionsJSON = await options.mutateAsync({});
    } catch {
      return;
    }
    let credential;
    setPrompting(true);
    try {
      credential = await startAuthentication({ optionsJSON: optionsJSON as Parameters<typeof startAuthentication>[0]['optionsJSON'] });
    } catch (error) {
      setProblem(ceremonyProblem(error));
      return;
    } finally {
      setPrompting(false);
    }
    signIn.mutate({ body: { credential: credential as Schemas['PasskeySignInDto']['credential'], ...(accountId ? { accountId } : {}) } }, { onSuccess: onSignedIn });
  }

  return (
    <div className="passkey-sign-in">
      <Button variant="secondary" busy={options.isPending || prompting || signIn.isPending} onClick={() => void run()}>
        Sign in with a passkey
      </Button>
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
      <FormError error={options.error ?? signIn.error} />
    </div>
  );
}
