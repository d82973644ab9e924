import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { $api, api, call, onUnauthorized, setCredentials, type Schemas } from './api/client';

const STORAGE_KEY = 'platform-dashboard.session';

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

const ME = $api.queryOptions('get', '/api/v1/me');
const PROJECTS = $api.queryOptions('get', '/api/v1/platform/projects');

/**
 * The user, their account and its platform projects: two cached reads (`/api/v1/me`, the projects),
 * made stale by the changes that touch them like any other read.
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [stored, setStored] = useState<Stored | undefined>(() => {
    const saved = readStored();
    // Before the first read: the restored session's requests carry its token.
    if (saved) setCredentials({ token: saved.token, projectId: saved.projectId });
    return saved;
  });
  const me = $api.useQuery('get', '/api/v1/me', undefined, { enabled: Boolean(stored) });
  const hasAccount = Boolean(me.data?.data.account);
  const projects = $api.useQuery('get', '/api/v1/platform/projects', undefined, { enabled: Boolean(stored) && hasAccount });

  const begin = useCallback((next: Stored | undefined) => {
    setCredentials({ token: next?.token ?? null, projectId: next?.projectId ?? null });
    store(next);
    setStored(next);
  }, []);

  const logout = useCallback(() => begin(undefined), [begin]);

  // A stored token the service no longer takes (expired, revoked): back to the login page.
  const failed = Boolean(me.error || projects.error);
  useEffect(() => {
    if (stored && failed) logout();
  }, [stored, failed, logout]);

  useEffect(() => onUnauthorized(logout), [logout]);

  const login = useCallback(
    async (email: string, password: string, accountId?: string) => {
      const answer = await call(api.POST('/api/v1/login', { body: { email, password, ...(accountId ? { accountId } : {}) } }));
      setCredentials({ token: answer.accessToken, projectId: null });
      // Read before the session starts, so the pages open with the header filled in.
      const loaded = await queryClient.fetchQuery(ME);
      if (loaded.data.account) await queryClient.fetchQuery(PROJECTS);
      begin({ token: answer.accessToken, projectId: null });
    },
    [begin, queryClient],
  );

  const session = useMemo<Session | undefined>(() => {
    if (!stored || !me.data) return undefined;
    const account = me.data.data.account ?? null;
    if (account && !projects.data) return undefined;
    const list = projects.data?.data ?? [];
    const project =
      list.find((candidate) => candidate.id === stored.projectId) ?? list.find((candidate) => candidate.id === account?.defaultProjectId) ?? list[0];
    return {
      token: stored.token,
      me: me.data.data,
      account,
      projects: list,
      project,
      isAdmin: Boolean(account && (account.owner || account.role === 'admin')),
      selectProject: (id: string) => begin({ ...stored, projectId: id }),
      switchAccount: async (accountId: string, password: string) => login(me.data.data.user.email, password, accountId),
      logout,
    };
  }, [stored, me.data, projects.data, begin, login, logout]);

  const restoring = Boolean(stored) && !session && !failed;
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
