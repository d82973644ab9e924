import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, call, onUnauthorized, setCredentials, type Schemas } from './api/client';
import { navigate } from './router';

const STORAGE_KEY = 'finance-dashboard.session';

interface Stored {
  token: string;
  /** The platform project chosen in the header; null: the account's default. */
  projectId: string | null;
}

export type Me = Schemas['MeEnvelope'];
export type PlatformProject = Schemas['PlatformProjectView'];
export type AccountView = Schemas['AccountView'];

export interface Session {
  token: string;
  me: Me;
  account: AccountView | null;
  /** The account's platform projects (empty for a user in no account). */
  projects: PlatformProject[];
  /** The project the data pages act in. */
  project: PlatformProject | undefined;
  isAdmin: boolean;
  selectProject(id: string): void;
  switchAccount(accountId: string, password: string): Promise<void>;
  refresh(): Promise<void>;
  logout(): void;
}

interface SessionControl {
  session: Session | undefined;
  /** True while a stored session is being restored at start. */
  restoring: boolean;
  login(email: string, password: string, accountId?: string): Promise<void>;
}

const SessionContext = createContext<SessionControl | undefined>(undefined);

function readStored(): Stored | undefined {
  try {
    const parsed = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null') as Stored | null;
    return parsed && typeof parsed.token === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function store(value: Stored | undefined): void {
  if (value) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(value));
  else sessionStorage.removeItem(STORAGE_KEY);
}

async function loadAccountState(): Promise<{ me: Me; projects: PlatformProject[] }> {
  const me = (await call(api.GET('/api/v1/me'))).data;
  const projects = me.account ? (await call(api.GET('/api/v1/platform/projects'))).data : [];
  return { me, projects };
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const [stored, setStored] = useState<Stored | undefined>(readStored);
  const [state, setState] = useState<{ me: Me; projects: PlatformProject[] } | undefined>();
  const [restoring, setRestoring] = useState(Boolean(stored));

  const begin = useCallback((next: Stored | undefined) => {
    setCredentials({ token: next?.token ?? null, projectId: next?.projectId ?? null });
    store(next);
    setStored(next);
  }, []);

  const logout = useCallback(() => {
    begin(undefined);
    setState(undefined);
  }, [begin]);

  // Restores the session of this browser tab, if any.
  useEffect(() => {
    const saved = readStored();
    if (!saved) return;
    setCredentials({ token: saved.token, projectId: saved.projectId });
    loadAccountState().then(
      (loaded) => {
        setState(loaded);
        setRestoring(false);
      },
      () => {
        logout();
        setRestoring(false);
      },
    );
  }, [logout]);

  useEffect(() => onUnauthorized(logout), [logout]);

  const login = useCallback(
    async (email: string, password: string, accountId?: string) => {
      const answer = await call(api.POST('/api/v1/login', { body: { email, password, ...(accountId ? { accountId } : {}) } }));
      setCredentials({ token: answer.accessToken, projectId: null });
      const loaded = await loadAccountState();
      begin({ token: answer.accessToken, projectId: null });
      setState(loaded);
      // From the login or signup page to the overview; a page that asked for a new login stays.
      if (/^#?\/?(login|signup)?([/?].*)?$/.test(window.location.hash)) navigate('overview');
    },
    [begin],
  );

  const session = useMemo<Session | undefined>(() => {
    if (!stored || !state) return undefined;
    const account = state.me.account ?? null;
    const project =
      state.projects.find((candidate) => candidate.id === stored.projectId) ??
      state.projects.find((candidate) => candidate.id === account?.defaultProjectId) ??
      state.projects[0];
    return {
      token: stored.token,
      me: state.me,
      account,
      projects: state.projects,
      project,
      isAdmin: Boolean(account && (account.owner || account.role === 'admin')),
      selectProject: (id: string) => begin({ ...stored, projectId: id }),
      switchAccount: async (accountId: string, password: string) => login(state.me.user.email, password, accountId),
      refresh: async () => setState(await loadAccountState()),
      logout,
    };
  }, [stored, state, begin, login, logout]);

  const control = useMemo(() => ({ session, restoring, login }), [session, restoring, login]);
  return <SessionContext.Provider value={control}>{children}</SessionContext.Provider>;
}

export function useSessionControl(): SessionControl {
  const control = useContext(SessionContext);
  if (!control) throw new Error('useSessionControl outside SessionProvider');
  return control;
}

/** The logged-in session: only used under pages that require one. */
export function useSession(): Session {
  const { session } = useSessionControl();
  if (!session) throw new Error('useSession without a session');
  return session;
}
