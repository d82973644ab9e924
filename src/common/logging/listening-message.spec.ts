import { listeningMessage } from './listening-message';

describe('the start-up line', () => {
  it('names the dashboard and the Swagger UI at an address a browser here opens', () => {
    expect(listeningMessage('0.0.0.0', 3000)).toBe(
      "Listening on 0.0.0.0:3000: the dashboard is at http://localhost:3000/dashboard, the API's Swagger UI at http://localhost:3000/docs",
    );
    expect(listeningMessage('127.0.0.1', 4000)).toContain('http://127.0.0.1:4000/dashboard');
    expect(listeningMessage('::1', 4000)).toContain('http://[::1]:4000/dashboard');
  });
});
