import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { $api, api, ApiError, call, onUnauthorized, setCredentials, type Schemas } from './api/client';

/** The platform project chosen in the header. Not a credential: the session itself is the HttpOnly `sid` cookie. */
const PROJECT_KEY = 'platform-dashboard.project';

export type Me = Schemas['MeEnvelope'];
export type PlatformProject = Schemas['PlatformProjectView'];
export type AccountView = Schemas['AccountView'];

/** What proves the second factor: a code of the authenticator app or one recovery code. */
export type Factor = { totp: string } | { recoveryCode: string };

export interface SignInRequest {
  email: string;
  password: string;
  factor?: Factor;
  accountId?: string;
}

export interface Session {
  me: Me;
  account: AccountView | null;
  /** The account's platform projects (empty for a user in no account). */
  projects: PlatformProject[];
  /** The project the data pages act in. */
  project: PlatformProject | undefined;
  isAdmin: boolean;
  /**
   * The account requires two-step sign-in and this session was signed in with a password alone: its
   * data is refused (403 `mfa_required`) until the user sets a factor up and signs in with it.
   */
  mfaSetupRequired: boolean;
  selectProject(id: string): void;
  /** A new session in another of the user's accounts (the API binds a session to one account); the current one is ended. */
  switchAccount(accountId: string, password: string, factor?: Factor): Promise<void>;
  logout(): Promise<void>;
}

interface SessionControl {
  session: Session | undefined;
  /** True while the first read tells whether the browser holds a live session. */
  restoring: boolean;
  /** Why the sign-in page shows again (the session expired or was ended elsewhere); cleared at the next sign-in. */
  notice: string | undefined;
  /** Signs in; a user with a second factor gets `ApiError` 401 `code: mfa_required` without `factor`. */
  login(request: SignInRequest): Promise<void>;
  /** Takes up a session opened another way (a passkey): the cookie is set already. */
  signedIn(): Promise<void>;
}

const SessionContext = createContext<SessionControl | undefined>(undefined);

function readProject(): string | null {
  try {
    return sessionStorage.getItem(PROJECT_KEY);
  } catch {
    return null;
  }
}

function storeProject(id: string | null): void {
  try {
    if (id) sessionStorage.setItem(PROJECT_KEY, id);
    else sessionStorage.removeItem(PROJECT_KEY);
  } catch {
    // Storage refused (private mode): the default project after a reload.
  }
}

const ME = $api.queryOptions('get', '/api/v1/me');
const PROJECTS = $api.queryOptions('get', '/api/v1/platform/projects');

/** Signed in, signed out, or not known yet (the cookie is out of the page's reach: only a read tells). */
type State = 'unknown' | 'in' | 'out';

/**
 * The user, their account and its platform projects: two cached reads (`/api/v1/me`, the projects),
 * made stale by the changes that touch them like any other read. The session is the `sid` cookie the
 * service sets at sign-in (HttpOnly: no script of the page can read or send it elsewhere); the page
 * only learns whether it is live from the answers.
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [state, setState] = useState<State>('unknown');
  const [projectId, setProjectId] = useState<string | null>(() => {
    const saved = readProject();
    setCredentials({ projectId: saved });
    return saved;
  });
  const [notice, setNotice] = useState<string | undefined>();
  // While the state is unknown, the first read of /me says whether a session is live (401: none).
  const me = $api.useQuery('get', '/api/v1/me', undefined, { enabled: state !== 'out', retry: false });
  const hasAccount = Boolean(me.data?.data.account);
  const projects = $api.useQuery('get', '/api/v1/platform/projects', undefined, {
    enabled: state === 'in' && hasAccount,
  });

  useEffect(() => {
    if (state === 'unknown' && me.data) setState('in');
    if (state === 'unknown' && me.error) setState('out');
  }, [state, me.data, me.error]);

  const chooseProject = useCallback((id: string | null) => {
    setCredentials({ projectId: id });
    storeProject(id);
    setProjectId(id);
  }, []);

  const end = useCallback(
    (why: string | undefined) => {
      setState('out');
      setNotice(why);
      chooseProject(null);
      queryClient.clear();
    },
    [chooseProject, queryClient],
  );

  const logout = useCallback(async () => {
    try {
      await call(api.DELETE('/api/v1/sessions/current'));
    } catch {
      // Ended already (or unreachable): the page forgets it all the same.
    }
    end(undefined);
  }, [end]);

  // A request refused for want of a session: it expired, or was ended from another device.
  useEffect(
    () =>
      onUnauthorized(() => {
        if (state === 'in') end('Your session has ended. Sign in again to continue.');
      }),
    [state, end],
  );
  const mfaSetupRequired = projects.error?.code === 'mfa_required';
  const failed = state === 'in' && Boolean(me.error || (projects.error && !mfaSetupRequired));
  useEffect(() => {
    if (failed && (me.error?.statusCode === 401 || projects.error?.statusCode === 401))
      end('Your session has ended. Sign in again to continue.');
  }, [failed, me.error, projects.error, end]);

  /** Takes up the session the browser's cookie now holds; the header's reads are made before the pages show, so they open filled in. */
  const adopt = useCallback(async () => {
    chooseProject(null);
    queryClient.clear();
    const loaded = await queryClient.fetchQuery(ME);
    // An account that requires two-step sign-in refuses its projects to a password-only session: the shell says so.
    if (loaded.data.account)
      await queryClient.fetchQuery(PROJECTS).catch((error: unknown) => {
        if (!(error instanceof ApiError && error.code === 'mfa_required')) throw error;
      });
    setNotice(undefined);
    setState('in');
  }, [chooseProject, queryClient]);

  /** Opens a session with a password (and a second factor when the user has one). */
  const open = useCallback(
    async ({ email, password, factor, accountId }: SignInRequest) => {
      await call(
        api.POST('/api/v1/sessions', {
          body: { email, password, ...(factor ?? {}), ...(accountId ? { accountId } : {}) },
        }),
      );
      await adopt();
    },
    [adopt],
  );

  const switchAccount = useCallback(
    async (accountId: string, password: string, factor: Factor | undefined, email: string) => {
      const mine = await call(api.GET('/api/v1/sessions'));
      const previous = mine.data.find((candidate) => candidate.current);
      await open({ email, password, factor, accountId });
      // The new cookie replaced the old one in the browser; the old session ends rather than idling out.
      if (previous)
        await call(api.DELETE('/api/v1/sessions/{id}', { params: { path: { id: previous.id } } })).catch(
          () => undefined,
        );
    },
    [open],
  );

  const session = useMemo<Session | undefined>(() => {
    if (state !== 'in' || !me.data) return undefined;
    const account = me.data.data.account ?? null;
    if (account && !projects.data && !mfaSetupRequired) return undefined;
    const list = projects.data?.data ?? [];
    const project =
      list.find((candidate) => candidate.id === projectId) ??
      list.find((candidate) => candidate.id === account?.defaultProjectId) ??
      list[0];
    const email = me.data.data.user.email;
    return {
      me: me.data.data,
      account,
      projects: list,
      project,
      isAdmin: Boolean(account && (account.owner || account.role === 'admin')),
      mfaSetupRequired,
      selectProject: (id: string) => chooseProject(id),
      switchAccount: (accountId: string, password: string, factor?: Factor) =>
        switchAccount(accountId, password, factor, email),
      logout,
    };
  }, [state, me.data, projects.data, mfaSetupRequired, projectId, chooseProject, switchAccount, logout]);

  const restoring = state === 'unknown' || (state === 'in' && !session && !failed);
  const control = useMemo(
    () => ({ session, restoring, notice, login: open, signedIn: adopt }),
    [session, restoring, notice, open, adopt],
  );
  return <SessionContext.Provider value={control}>{children}</SessionContext.Provider>;
}

/** True when a sign-in answered that the user has a second factor to prove. */
export function needsSecondFactor(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401 && error.code === 'mfa_required';
}

export function useSessionControl(): SessionControl {
  const control = useContext(SessionContext);
  if (!control) throw new Error('useSessionControl outside SessionProvider');
  return control;
}

/** The signed-in session: only used under pages that require one. */
export function useSession(): Session {
  const { session } = useSessionControl();
  if (!session) throw new Error('useSession without a session');
  return session;
}
