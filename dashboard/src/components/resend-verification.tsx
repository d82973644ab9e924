import { Alert, Button, Group, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { $api, api, asApiError, call } from '../api/client';
import { describeError } from '../errors';

const ME_KEY = $api.queryOptions('get', '/api/v1/me').queryKey;

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
  const queryClient = useQueryClient();
  // The mail's link opens in another tab: back here, read the user again, and the banner goes once verified.
  useEffect(() => {
    const reread = () => void queryClient.invalidateQueries({ queryKey: ME_KEY });
    window.addEventListener('focus', reread);
    return () => window.removeEventListener('focus', reread);
  }, [queryClient]);
  return (
    // A note, not an alert: it stays while the email is unverified, and announcing it on every page would be noise.
    <Alert color="yellow" variant="light" p="xs" role="note">
      <Group gap="sm" justify="space-between" wrap="wrap">
        <Text size="sm">
          Verify your email: follow the link we mailed to <strong>{email}</strong>. Inviting members waits for it.
        </Text>
        <ResendVerificationButton />
      </Group>
    </Alert>
  );
}
