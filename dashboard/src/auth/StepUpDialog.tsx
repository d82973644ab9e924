import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, call, onStepUpRequired } from '../api/client';
import { useAction } from '../hooks';
import { Field, FormActions, FormError } from '../ui';
import { SecondFactorField, toFactor, type FactorKind } from './SecondFactorField';

/**
 * The one step-up prompt of the dashboard. When any action answers 403 `step_up_required` (a refund,
 * making, rolling or revoking a key, removing a member, changing a factor or the password), the API
 * client waits on this dialog: the person proves their second factor again, or their password when
 * they have no factor (`POST /api/v1/sessions/current/step-up`, which renews the session cookie) and
 * the client sends the action once more; cancelling fails the action with the refusal. Several
 * refusals at once share one prompt.
 */
export function StepUpDialog() {
  const dialog = useRef<HTMLDialogElement>(null);
  const waiting = useRef<{ promise: Promise<boolean>; settle: (proven: boolean) => void } | undefined>(undefined);
  const [open, setOpen] = useState(false);
  const [kind, setKind] = useState<FactorKind>('totp');
  const [code, setCode] = useState('');
  // A person with no second factor proves their password instead.
  const [withPassword, setWithPassword] = useState(false);
  const prove = useAction(async () => {
    await call(api.POST('/api/v1/sessions/current/step-up', { body: withPassword ? { password: code } : toFactor(kind, code) }));
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
          call(api.GET('/api/v1/me/mfa')).then(
            (factors) => setWithPassword(!factors.data.totpEnabledAt && factors.data.passkeys === 0),
            () => undefined,
          );
          prove.reset();
          setOpen(true);
        }
        return waiting.current.promise;
      }),
    // Registered once: `prove.reset` is stable.
    [prove.reset],
  );

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);

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
    <dialog
      ref={dialog}
      className="step-up"
      aria-labelledby="step-up-heading"
      aria-describedby="step-up-why"
      // Escape closes a modal dialog: the action then fails with the refusal, as Cancel does.
      onCancel={(event) => (event.preventDefault(), finish(false))}
    >
      {open && (
        <form onSubmit={submit}>
          <h2 id="step-up-heading">Confirm it is you</h2>
          <p id="step-up-why" className="muted">
            This action moves money or changes access, so it needs your {withPassword ? 'password' : 'second factor'} again. It is then done at once.
          </p>
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
            <SecondFactorField kind={kind} onKind={setKind} value={code} onChange={setCode} error={prove.error?.status === 401 ? prove.error.message : undefined} />
          )}
          {prove.error?.status !== 401 && <FormError error={prove.error} fields={['totp', 'recoveryCode', 'password']} />}
          <FormActions busy={prove.busy} onCancel={() => finish(false)}>
            Confirm
          </FormActions>
        </form>
      )}
    </dialog>
  );
}
