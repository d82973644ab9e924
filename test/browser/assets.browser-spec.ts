import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CDPSession, Page } from 'playwright-core';
import sharp from 'sharp';
import { createFirstAdmin, TestUser } from '../support/auth';
import { pngFixture, sha256, TUS, wavFixture } from '../support/assets';
import { createContentProject } from '../support/content';
import { createTestApp, TestApp } from '../support/test-app';
import { DashboardBrowser, settled as settledIn, signInThroughDashboard } from './support/dashboard-browser';
import { expectScreenshot } from './support/screenshots';

// jest reads testTimeout from the top-level configuration only, not from a project's.
jest.setTimeout(120_000);

const MiB = 1024 * 1024;

/**
 * Uploading a content project's files from the dashboard (tus, with tus-js-client): a small image
 * that becomes ready with its thumbnail; a larger one paused part-way, the page reloaded, and the
 * same upload resumed to the same bytes; a file over `ASSET_MAX_BYTES` refused with the API's
 * message; an asset deleted. Each state is checked with axe-core.
 */
describe('assets in the dashboard', () => {
  let t: TestApp;
  let dashboard: DashboardBrowser;
  let page: Page;
  let owner: TestUser;
  let projectId: string;
  let dataDir: string;
  let files: string;

  const assetsAddress = () => `${t.baseUrl}/dashboard/content/projects/${projectId}/assets`;
  const rowOf = (title: string, status?: string) =>
    page
      .locator(status ? `tr[data-asset][data-status="${status}"]` : 'tr[data-asset]')
      .filter({ has: page.getByRole('cell').getByText(title, { exact: true }) });
  const progressOf = (fileName: string) => page.getByRole('progressbar', { name: `Upload of ${fileName}` });
  const settled = () => settledIn(page);
  const dialog = () => page.getByRole('dialog', { name: 'Upload a file' });
  /** Opens the upload dialog, unless it is open, and gives it the file. */
  async function pick(path: string): Promise<void> {
    if (!(await dialog().isVisible())) await page.getByRole('button', { name: 'Upload a file' }).click();
    await dialog().getByLabel('File to upload').setInputFiles(path);
  }
  /** What the dialog says of the upload: its words, then the asset's state once processed. */
  const uploadStatus = () => dialog().locator('.upload-status');

  /** Waits for the row's thumbnail to be loaded and drawn. */
  async function thumbnailDrawn(row: ReturnType<typeof rowOf>): Promise<void> {
    const image = row.locator('img');
    await image.waitFor();
    await page.waitForFunction(
      (element) =>
        (element as unknown as { complete: boolean; naturalWidth: number }).complete &&
        (element as unknown as { naturalWidth: number }).naturalWidth > 0,
      await image.elementHandle(),
    );
  }

  /** The project's assets as the API lists them. */
  const listed = async (): Promise<Record<string, any>[]> =>
    (await t.http.get(`/projects/${projectId}/assets`, { token: owner.token })).body;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'assets-browser-'));
    files = mkdtempSync(join(tmpdir(), 'assets-browser-files-'));
    t = await createTestApp({
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      DATA_DIR: dataDir,
      ASSET_MAX_BYTES: String(8 * MiB),
    });
    owner = await createFirstAdmin(t.http);
    projectId = await createContentProject(t.http, owner.token);
    dashboard = await DashboardBrowser.launch();
    ({ page } = dashboard);
    await signInThroughDashboard(page, t.baseUrl, owner.email, owner.password);
  });

  afterAll(async () => {
    await dashboard?.close();
    await t?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (files) rmSync(files, { recursive: true, force: true });
  });

  it("opens a content project's assets page by its address, empty, saying what to do", async () => {
    await page.goto(assetsAddress());
    await page.getByRole('heading', { level: 1, name: 'Assets of Listed' }).waitFor();
    await page.getByText('No assets yet.').waitFor();
    await settled();
    await dashboard.checkAccessibility('assets-empty');
    await dashboard.screenshot('assets-empty');
  });

  it('uploads a small image, shows its state live until ready, then its thumbnail', async () => {
    const png = await pngFixture(64, 48);
    const path = join(files, 'tiny-cover.png');
    writeFileSync(path, png);

    await pick(path);
    // Read again by the list itself (no reload) until processing ends.
    // The dialog follows the upload to the asset's end: processing, then ready.
    await uploadStatus().filter({ hasText: 'Ready' }).waitFor();
    await expect(progressOf('tiny-cover.png').getAttribute('aria-valuetext')).resolves.toBe('100%');
    // The list behind the dialog reads the asset again on its own schedule: the picture waits for
    // its row to be ready with the thumbnail drawn (by CSS, as the modal hides the row from roles).
    await thumbnailDrawn(page.locator('tr[data-asset][data-status="ready"]').filter({ hasText: 'tiny-cover' }));
    await settled();
    await dashboard.checkAccessibility('assets-upload-ready');
    await dashboard.screenshot('assets-upload-ready');
    await expectScreenshot(page, 'assets-upload-ready');
    await dialog().getByRole('button', { name: 'Done' }).click();
    await dialog().waitFor({ state: 'detached' });
    const row = rowOf('tiny-cover', 'ready');
    await row.waitFor();
    // The badge's words, which its style shows in capitals.
    await expect(row.locator('.asset-state').innerText()).resolves.toMatch(/Ready/i);

    const thumbnail = row.getByRole('img', { name: 'Thumbnail of tiny-cover' });
    await thumbnail.waitFor();
    // At its size in a list: 96 px wide, its height in the picture's proportions (64 × 48).
    await expect(thumbnail.evaluate((image) => [image.clientWidth, image.clientHeight])).resolves.toEqual([96, 72]);
    await thumbnailDrawn(row);

    const [asset] = (await listed()).filter((candidate) => candidate.title === 'tiny-cover');
    expect(asset).toMatchObject({
      status: 'ready',
      kind: 'image',
      mimeType: 'image/png',
      size: png.length,
      sha256: sha256(png),
      width: 64,
      height: 48,
    });
    await settled();
    await dashboard.checkAccessibility('assets-ready');
    await dashboard.screenshot('assets-ready');
    await expectScreenshot(page, 'assets-ready');
  });

  it('plays a ready audio asset from its signed content URL', async () => {
    const wav = wavFixture(1);
    const path = join(files, 'tone.wav');
    writeFileSync(path, wav);

    await pick(path);
    await uploadStatus().filter({ hasText: 'Ready' }).waitFor();
    await dialog().getByRole('button', { name: 'Done' }).click();
    const row = rowOf('tone', 'ready');
    await row.waitFor();
    await row.getByRole('button', { name: 'Play tone' }).click();
    const player = row.locator('audio[aria-label="Player of tone"]');
    await player.waitFor();
    // The element reads the signed content URL itself (it cannot send a token), and finds the tone's second.
    await expect(player.getAttribute('src')).resolves.toMatch(
      new RegExp(`^${t.baseUrl}/asset-content/[0-9a-f]{24}\\.`),
    );
    await page.waitForFunction(
      (audio) => Math.abs(Number((audio as unknown as { duration: number }).duration) - 1) < 0.05,
      await player.elementHandle(),
    );
    await settled();
    await dashboard.checkAccessibility('assets-audio');
  });

  it('pauses a larger upload part-way, resumes it after a reload, and stores the same bytes', async () => {
    // Random pixels do not compress: a PNG of about 4 MiB.
    const big = await sharp(randomBytes(1200 * 1200 * 3), { raw: { width: 1200, height: 1200, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    expect(big.length).toBeGreaterThan(3 * MiB);
    const path = join(files, 'big-noise.png');
    writeFileSync(path, big);

    // A slow uplink, so the upload is still under way when it is paused.
    const cdp: CDPSession = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 512 * 1024,
    });

    await pick(path);
    const progress = progressOf('big-noise.png');
    await page.waitForFunction(
      (bar) =>
        Number((bar as unknown as { getAttribute: (name: string) => string | null }).getAttribute('aria-valuenow')) >=
        10,
      await progress.elementHandle(),
    );
    await uploadStatus()
      .getByText(/^Uploading: \d+%$/)
      .waitFor();
    // While it runs, nothing says to pick the file again: the row shows the percent sent.
    await expect(page.getByText(/pick the same file/i).count()).resolves.toBe(0);
    await dialog().getByRole('button', { name: 'Pause' }).click();
    await dialog().getByRole('button', { name: 'Resume' }).waitFor();
    await uploadStatus()
      .getByText(/^Paused at \d+%$/)
      .waitFor();
    const pausedAt = Number(await progress.getAttribute('aria-valuenow'));
    expect(pausedAt).toBeGreaterThanOrEqual(10);
    expect(pausedAt).toBeLessThan(100);
    await dashboard.checkAccessibility('assets-paused');
    await dashboard.screenshot('assets-paused');
    // Resumed and paused again in the dialog: the same upload goes on.
    await dialog().getByRole('button', { name: 'Resume' }).click();
    await dialog().getByRole('button', { name: 'Pause' }).waitFor();
    await dialog().getByRole('button', { name: 'Pause' }).click();
    await dialog().getByRole('button', { name: 'Resume' }).waitFor();

    const [asset] = (await listed()).filter((candidate) => candidate.title === 'big-noise');
    expect(asset.status).toBe('uploading');
    // The service holds part of the file: what HEAD answers is where the upload goes on from.
    const head = await t.http.request('HEAD', `/assets/${asset.id}/upload`, undefined, {
      token: owner.token,
      headers: TUS,
    });
    const offset = Number(head.headers.get('upload-offset'));
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThan(big.length);
    // What the browser keeps to resume is the address that wants the user's credentials, never the one-time upload URL.
    const stored = await page.evaluate(() => {
      const storage = (globalThis as unknown as { localStorage: Record<string, string> }).localStorage;
      return Object.keys(storage)
        .filter((key) => key.startsWith('tus::'))
        .map((key) => (JSON.parse(storage[key]) as { uploadUrl: string }).uploadUrl);
    });
    expect(stored).toEqual([`${t.baseUrl}/assets/${asset.id}/upload`]);

    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Assets of Listed' }).waitFor();
    // Stopped, and no upload runs in this page: the row says how to go on.
    await expect(rowOf('big-noise').innerText()).resolves.toContain('Interrupted: pick the same file again to resume.');

    await pick(path);
    await uploadStatus()
      .getByText(/^Resuming from \d+%…$|^Uploading: \d+% \(resumed\)$|^Processing/)
      .first()
      .waitFor();
    await uploadStatus().filter({ hasText: 'Ready' }).waitFor({ timeout: 60_000 });
    await dialog().getByRole('button', { name: 'Done' }).click();
    await page.locator(`tr[data-asset="${asset.id}"][data-status="ready"]`).waitFor({ timeout: 60_000 });

    // The same asset took the rest: no second one was created for the file.
    const after = (await listed()).filter((candidate) => candidate.fileName === 'big-noise.png');
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: asset.id, status: 'ready', size: big.length, sha256: sha256(big) });
    // Nothing is left to resume: the browser forgot the finished upload.
    const kept = await page.evaluate(() =>
      Object.keys((globalThis as unknown as { localStorage: Record<string, string> }).localStorage).filter((key) =>
        key.startsWith('tus::'),
      ),
    );
    expect(kept).toEqual([]);
    await settled();
    await dashboard.checkAccessibility('assets-resumed');
  });

  it("shows the API's 413 for a file over ASSET_MAX_BYTES, and creates nothing", async () => {
    const path = join(files, 'too-large.png');
    writeFileSync(path, Buffer.alloc(8 * MiB + 1, 1));
    const before = (await listed()).length;

    await pick(path);
    const alert = uploadStatus().getByRole('alert');
    await alert.waitFor();
    const said = await alert.innerText();
    expect(said).toMatch(/over the 8388608 bytes an asset may hold\.$/);
    // The service's setting is not the person's word.
    expect(said).not.toMatch(/ASSET_MAX_BYTES/);
    expect((await listed()).length).toBe(before);
    await settled();
    await dashboard.checkAccessibility('assets-too-large');
    await dashboard.screenshot('assets-too-large');
  });

  it('shows why an asset whose bytes are not its declared type failed', async () => {
    const path = join(files, 'not-an-image.png');
    writeFileSync(path, 'These are words, not pixels.\n');

    await pick(path);
    // The dialog says it failed, and why.
    await uploadStatus().filter({ hasText: 'Failed in processing' }).waitFor();
    const [asset] = (await listed()).filter((candidate) => candidate.title === 'not-an-image');
    expect(asset.error.code).toBe('type_mismatch');
    await expect(uploadStatus().getByRole('alert').innerText()).resolves.toContain(asset.error.message);
    await dashboard.checkAccessibility('assets-upload-errored');
    await dialog().getByRole('button', { name: 'Done' }).click();
    const row = rowOf('not-an-image', 'errored');
    await row.waitFor();
    const state = await row.locator('.asset-state').innerText();
    expect(state).toMatch(/Failed/i);
    expect(state).toContain(asset.error.message);
    expect(state).not.toContain('type_mismatch');
    await settled();
    await dashboard.checkAccessibility('assets-errored');
  });

  it('deletes an asset', async () => {
    const [asset] = (await listed()).filter((candidate) => candidate.title === 'tiny-cover');
    await page.getByRole('button', { name: 'Actions for tiny-cover' }).click();
    await page.getByRole('menu').getByRole('menuitem', { name: 'Delete' }).click();
    await page
      .getByRole('dialog', { name: 'Delete tiny-cover' })
      .getByRole('button', { name: 'Delete tiny-cover' })
      .click();
    await page.locator(`tr[data-asset="${asset.id}"]`).waitFor({ state: 'detached' });
    expect((await t.http.get(`/assets/${asset.id}`, { token: owner.token })).status).toBe(404);
  });

  it('had no serious or critical accessibility violation and no script, style or policy error on any page', () => {
    expect(dashboard.accessibility.map(({ page: name }) => name)).toEqual([
      'assets-empty',
      'assets-upload-ready',
      'assets-ready',
      'assets-audio',
      'assets-paused',
      'assets-resumed',
      'assets-too-large',
      'assets-upload-errored',
      'assets-errored',
    ]);
    expect(dashboard.accessibility.filter((entry) => entry.violations.length > 0)).toEqual([]);
    expect(dashboard.pageProblems).toEqual([]);
  });
});
