import { Alert, Button, Group, Text } from '@mantine/core';
import { useState } from 'react';
import { api, asApiError, call } from '../api/client';
import { describeError } from '../errors';

/**
 * Mails the verification link again (`POST /api/v1/email-verifications`), and says what happened:
 * sent, already verified, or when to try again.
 */
export function ResendVerificationButton() {
  const [state, setState] = useState<{ busy: boolean; said?: string }>({ busy: false });
  async function resend() {
    setState({ busy: true });
    try {
      await call(api.POST('/api/v1/email-verifications'));
      setState({ busy: false, said: 'Sent. Follow the link in the mail to verify your email.' });
    } catch (error) {
      const failure = asApiError(error);
      setState({
        busy: false,
        said: failure.status === 409 ? 'Your email is verified already.' : describeError(failure).sentence,
      });
    }
  }
  return (
    <Group gap="sm" component="span" wrap="nowrap">
      <Button size="compact-sm" variant="default" loading={state.busy} onClick={() => void resend()}>
        Resend
      </Button>
      <Text component="span" size="sm" aria-live="polite">
        {state.said}
      </Text>
    </Group>
  );
}

/** Above every page for a signed-in user whose email is not verified: some actions wait for it. */
export function VerifyEmailBanner({ email }: { email: string }) {
  return (
    <Alert color="yellow" variant="light" p="xs" role="region" aria-label="Verify your email">
      <Group gap="sm" justify="space-between" wrap="wrap">
        <Text size="sm">
          Verify your email: follow the link we mailed to <strong>{email}</strong>. Inviting members waits for it.
        </Text>
        <ResendVerificationButton />
      </Group>
    </Alert>
  );
}
