import { configNamespace } from './namespace';
import { sessionsConfig } from './sessions.config';

export const passkeysConfig = configNamespace('passkeys', (env) => {
  const publicUrl = new URL(env.PUBLIC_URL);
  return {
    /** The name an authenticator shows beside the passkey. */
    rpName: 'Platform',
    rpId: env.PASSKEY_RP_ID || publicUrl.hostname,
    /** Where a ceremony may run: the service as its users reach it, and the dashboard's own origins. */
    origins: [...new Set([publicUrl.origin.toLowerCase(), ...sessionsConfig.build(env).dashboardOrigins])],
  };
});

export type PasskeysConfig = ReturnType<typeof passkeysConfig.build>;
