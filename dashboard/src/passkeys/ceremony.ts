import { WebAuthnError } from '@simplewebauthn/browser';

/** What went wrong in the browser's part of a ceremony, in words (a refusal by the service comes as an ApiError instead). */
export function ceremonyProblem(error: unknown): string {
  if (error instanceof WebAuthnError && error.code === 'ERROR_CEREMONY_ABORTED')
    return 'The passkey prompt was closed.';
  if (error instanceof Error && error.name === 'NotAllowedError') return 'The passkey prompt was closed or timed out.';
  return error instanceof Error ? error.message : 'The passkey could not be used.';
}

/**
 * The browser's part of a passkey ceremony: the service's options, then the passkey prompt with them.
 * Answers the prompt's credential, or undefined when a step failed: the options' failure stays the
 * caller's request error, the prompt's goes to `onProblem` in words (`describe`, ceremonyProblem unless told).
 */
export async function promptForPasskey<Options, Credential>(
  options: () => Promise<unknown>,
  prompt: (optionsJSON: Options) => Promise<Credential>,
  onProblem: (problem: string) => void,
  describe: (error: unknown) => string = ceremonyProblem,
): Promise<Credential | undefined> {
  let optionsJSON: unknown;
  try {
    optionsJSON = await options();
  } catch {
    return undefined;
  }
  try {
    // The generated schema types the options loosely; the service sends the library's JSON shape.
    return await prompt(optionsJSON as Options);
  } catch (error) {
    onProblem(describe(error));
    return undefined;
  }
}
