import { AsyncLocalStorage } from 'node:async_hooks';
import diagnostics from 'node:diagnostics_channel';
import type { TestApp } from './test-app';
import { testDatabaseUri } from './test-database';

/** A fresh test database's URI with the driver's command monitoring on, for `commandsOf`. */
export function monitoredDatabaseUri(name: string): string {
  const uri = testDatabaseUri(name);
  return `${uri}${uri.includes('?') ? '&' : '?'}monitorCommands=true`;
}

/** What one request sent: the count, and each command as `<command> <collection>` in the order sent. */
export interface RequestCommands {
  count: number;
  names: string[];
}

/**
 * The database commands the service sends while answering the one request `send` makes, counted as
 * bench/count-commands.js counts them: those started in the request's async context before its
 * answer is handed over (work left running after it is not the caller's wait). The app must run in
 * this process on a client with `monitorCommands` (`monitoredDatabaseUri`).
 */
export async function commandsOf(t: TestApp, send: () => Promise<unknown>): Promise<RequestCommands> {
  const context = new AsyncLocalStorage<{ open: boolean; names: string[] }>();
  let store: { open: boolean; names: string[] } | undefined;
  const onStart = ({
    request,
    response,
  }: {
    request: { url?: string };
    response: { end: (...args: unknown[]) => unknown };
  }) => {
    if (request.url === '/health') return;
    const mine = { open: true, names: [] as string[] };
    store = mine;
    context.enterWith(mine);
    const end = response.end;
    response.end = function endInContext(this: unknown, ...args: unknown[]) {
      mine.open = false;
      return end.apply(this, args);
    };
  };
  const onCommand = (event: { commandName: string; command: Record<string, unknown> }) => {
    const current = context.getStore();
    if (!current?.open) return;
    const target = event.command?.[event.commandName];
    current.names.push(typeof target === 'string' ? `${event.commandName} ${target}` : event.commandName);
  };
  diagnostics.subscribe('http.server.request.start', onStart as never);
  const client = t.db.getClient();
  client.on('commandStarted', onCommand);
  try {
    await send();
  } finally {
    client.off('commandStarted', onCommand);
    diagnostics.unsubscribe('http.server.request.start', onStart as never);
  }
  const names = store?.names ?? [];
  return { count: names.length, names };
}
