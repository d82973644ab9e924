import { browserSupportsWebAuthn, startAuthentication } from '@simplewebauthn/browser';
import { Alert, getDefaultZIndex, Modal, Stack, Text } from '@mantine/core';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, call, onStepUpRequired, type Schemas } from '../api/client';
import { useAction } from '../hooks';
import { promptForPasskey } from '../passkeys/ceremony';
import { Button, Field, FormActions, FormError } from '../ui';
import { SecondFactorField, toFactor, type FactorKind } from './SecondFactorField';

/**
 * The one step-up prompt of the dashboard. When any action answers 403 `step_up_required` (a refund,
 * making, rolling or revoking a key, removing a member, changing a factor or the password), the API
 * client waits on this dialog: the person proves their second factor again, or their password when
 * they have no factor (`POST /api/v1/sessions/current/step-up`, which renews the session cookie), or
 * one of their passkeys (`.../step-up/passkey`), and
 * the client sends the action once more; cancelling fails the action with the refusal. Several
 * refusals at once share one prompt.
 */
export function StepUpDialog() {
  const waiting = useRef<{ promise: Promise<boolean>; settle: (proven: boolean) => void } | undefined>(undefined);
  const [open, setOpen] = useState(false);
  const [kind, setKind] = useState<FactorKind>('totp');
  const [code, setCode] = useState('');
  // A person with no second factor proves their password instead.
  const [withPassword, setWithPassword] = useState(false);
  const [hasPasskey, setHasPasskey] = useState(false);
  const [passkeyProblem, setPasskeyProblem] = useState<string | undefined>();
  const prove = useAction(async () => {
    await call(
      api.POST('/api/v1/sessions/current/step-up', { body: withPassword ? { password: code } : toFactor(kind, code) }),
    );
    return true;
  });
  const proveWithPasskey = useAction(async () => {
    setPasskeyProblem(undefined);
    const credential = await promptForPasskey(
      () => call(api.POST('/api/v1/sessions/passkey/options')),
      (optionsJSON: Parameters<typeof startAuthentication>[0]['optionsJSON']) => startAuthentication({ optionsJSON }),
      setPasskeyProblem,
    );
    if (!credential) return false;
    await call(
      api.POST('/api/v1/sessions/current/step-up/passkey', {
        body: { credential: credential as Schemas['PasskeyAssertionDto']['credential'] },
      }),
    );
    return true;
  });

  useEffect(
    () =>
      onStepUpRequired(() => {
        if (!waiting.current) {
          let settle: (proven: boolean) => void = () => undefined;
          const promise = new Promise<boolean>((resolve) => (settle = resolve));
          waiting.current = { promise, settle };
          setCode('');
          setKind('totp');
          setWithPassword(false);
          setHasPasskey(false);
          setPasskeyProblem(undefined);
          call(api.GET('/api/v1/me/mfa')).then(
            (factors) => {
              setWithPassword(!factors.data.totpEnabledAt && factors.data.passkeys === 0);
              setHasPasskey(factors.data.passkeys > 0 && browserSupportsWebAuthn());
            },
            () => undefined,
          );
          prove.reset();
          proveWithPasskey.reset();
          setOpen(true);
        }
        return waiting.current.promise;
      }),
    // Registered once: the resets are stable.
    [prove.reset, proveWithPasskey.reset],
  );

  function finish(proven: boolean) {
    waiting.current?.settle(proven);
    waiting.current = undefined;
    setOpen(false);
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (await prove.run()) finish(true);
  }

  return (
    // Escape and the close button fail the action with the refusal, as Cancel does.
    <Modal
      opened={open}
      onClose={() => finish(false)}
      title="Confirm it is you"
      aria-describedby="step-up-why"
      closeButtonProps={{ 'aria-label': 'Cancel' }}
      withCloseButton={false}
      centered
      // Above the dialog whose action asked for it (a refund's), which stays open underneath.
      zIndex={getDefaultZIndex('modal') + 10}
    >
      {open && (
        <Stack component="form" gap="sm" onSubmit={submit}>
          <Text id="step-up-why" size="sm" c="dimmed">
            This action moves money or changes access, so it needs your {withPassword ? 'password' : 'second factor'}{' '}
            again. It is then done at once.
          </Text>
          {withPassword ? (
            <Field
              key="password"
              label="Password"
              type="password"
              autoComplete="current-password"
              required
              autoFocus
              value={code}
              onChange={(event) => setCode(event.target.value)}
              error={prove.error?.status === 401 ? prove.error.message : undefined}
            />
          ) : (
            <SecondFactorField
              kind={kind}
              onKind={setKind}
              value={code}
              onChange={setCode}
              error={prove.error?.status === 401 ? prove.error.message : undefined}
            />
          )}
          {prove.error?.status !== 401 && (
            <FormError error={prove.error} fields={['totp', 'recoveryCode', 'password']} />
          )}
          {hasPasskey && (
            <Stack gap="xs" align="flex-start">
              <Button
                variant="secondary"
                busy={proveWithPasskey.busy}
                onClick={() => void proveWithPasskey.run().then((proven) => proven && finish(true))}
              >
                Use a passkey instead
              </Button>
              {passkeyProblem && (
                <Alert color="red" variant="light" role="alert" p="xs">
                  {passkeyProblem}
                </Alert>
              )}
              <FormError error={proveWithPasskey.error} />
            </Stack>
          )}
          <FormActions busy={prove.busy} onCancel={() => finish(false)}>
            Confirm
          </FormActions>
        </Stack>
      )}
    </Modal>
  );
}
