import { configNamespace } from './namespace';

export const sessionsConfig = configNamespace('sessions', (env) => ({
  idleMs: env.SESSION_IDLE_MINUTES * 60_000,
  maxMs: env.SESSION_MAX_HOURS * 3_600_000,
  stepUpMs: env.STEP_UP_MINUTES * 60_000,
  /** The service's own origin for the session cookie's Origin check: `PUBLIC_URL`'s, never one derived from a request's headers. */
  publicOrigin: new URL(env.PUBLIC_URL).origin.toLowerCase(),
  dashboardOrigins: env.DASHBOARD_ORIGINS.split(',')
    .map((origin) => origin.trim().replace(/\/$/, '').toLowerCase())
    .filter(Boolean),
  /** Over plain http only outside production: a browser would drop a `Secure` cookie there. */
  insecureHttpAllowed: env.NODE_ENV !== 'production',
}));

export type SessionsConfig = ReturnType<typeof sessionsConfig.build>;
