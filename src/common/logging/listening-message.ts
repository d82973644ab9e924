/**
 * The start-up line that says where the service can be opened: the dashboard and the Swagger UI, at
 * an address a browser on this machine reaches (`localhost` for a wildcard bind address).
 */
export function listeningMessage(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  const base = `http://${reachable}:${port}`;
  return `Listening on ${host}:${port}: the dashboard is at ${base}/dashboard, the API's Swagger UI at ${base}/docs`;
}
