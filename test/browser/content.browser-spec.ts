import { randomBytes } from 'node:crypto';
import { ObjectId } from 'mongodb';
import { Page } from 'playwright-core';
import { createFirstAdmin, createUser, TestUser, uniqueEmail } from '../support/auth';
import { createTestApp, TestApp } from '../support/test-app';
import { DashboardBrowser, openSection, settled, signInThroughDashboard } from './support/dashboard-browser';
import { expectScreenshot } from './support/screenshots';

// jest reads testTimeout from the top-level configuration only, not from a project's.
jest.setTimeout(180_000);

/**
 * The dashboard's Content section, driven in Chromium: a client and its channel made in modals (with
 * the API's refusal under its field), a channel's project tree as a table (create, expand and
 * collapse by keyboard, each row's menu: move in a dialog offering only the parents the tree allows,
 * archive, delete with everything in it), a
 * project's page (access, share links shown once, grants), collaborators per channel (with a member's
 * 403), and a share link opened in a browser that never signed in. After each change the journey
 * asks the API or the database what it holds. Each page is checked with axe-core and saved as a
 * screenshot under test-artifacts/.
 */
describe('dashboard Content section in a browser', () => {
  let t: TestApp;
  let dashboard: DashboardBrowser;
  let page: Page;
  let admin: TestUser;
  let member: TestUser;
  let channelId: string;
  let otherChannelProject: string;
  let bonusId: string;
  let shareUrl: string;
  const channelName = 'Studio Sessions';
  const username = `studio_${randomBytes(4).toString('hex')}`;
  const password = 'blue-hours-preview';

  const as = () => ({ token: admin.token });
  const tree = () => page.getByRole('table', { name: `Projects of ${channelName}` });
  /** A project's link in the tree (its buttons are named after it). */
  const node = (title: string) => tree().getByRole('link', { name: title, exact: true });
  /** A project's link, for a row's `has` (which reads inside the row). */
  const titled = (title: string) => page.getByRole('link', { name: title, exact: true });
  /** Picks `item` in the row menu of `title` (Mantine renders the menu in a portal). */
  async function rowAction(title: string, item: string, on: Page = page): Promise<void> {
    // The menu opened last closes with a transition: its items are not this row's.
    await on.getByRole('menu').waitFor({ state: 'detached' });
    const menuItem = on.getByRole('menu').getByRole('menuitem', { name: item, exact: true });
    // A list read again while the menu opens may close it: open it until the item shows.
    for (let tries = 0; tries < 3 && !(await menuItem.isVisible()); tries++) {
      await on.getByRole('button', { name: `Actions for ${title}`, exact: true }).click();
      await menuItem.waitFor({ timeout: 3000 }).catch(() => undefined);
    }
    await menuItem.click();
  }

  /** The channel's projects as the API lists them, by title. */
  async function storedProjects(): Promise<
    Map<string, { _id: string; parentId: string | null; status: string; access: string }>
  > {
    const res = await t.http.get(`/channels/${channelId}/projects?limit=500`, as());
    expect(res.status).toBe(200);
    return new Map(
      (
        res.body as { _id: string; primaryTitle: string; parentId: string | null; status: string; access: string }[]
      ).map((project) => [project.primaryTitle, project]),
    );
  }

  async function openChannel(): Promise<void> {
    await openSection(page, 'Content', 'Content');
    await page
      .getByRole('table', { name: 'Channels of Studio owner' })
      .getByRole('link', { name: channelName, exact: true })
      .click();
    await page.getByRole('heading', { level: 1, name: new RegExp(`^${channelName}`) }).waitFor();
    await settled(page);
  }

  async function createProject(title: string, parent?: string): Promise<void> {
    if (parent) await rowAction(parent, 'Add sub-project');
    else await page.getByRole('button', { name: 'New project' }).click();
    const form = page.getByRole('form', { name: parent ? `New sub-project of ${parent}` : 'New project' });
    await form.getByLabel('Title').fill(title);
    await form.getByLabel('Type').selectOption('show');
    await form.getByRole('button', { name: 'Create project' }).click();
    await form.waitFor({ state: 'detached' });
    await node(title).waitFor();
    await settled(page);
  }

  beforeAll(async () => {
    t = await createTestApp({ LOGIN_MAX_FAILURES: '1000' });
    admin = await createFirstAdmin(t.http);
    member = await createUser(t.http, 'developer', admin.token);
    dashboard = await DashboardBrowser.launch();
    ({ page } = dashboard);
    await signInThroughDashboard(page, t.baseUrl, admin.email, admin.password);
  });

  afterAll(async () => {
    await dashboard?.close();
    await t?.close();
  });

  it('creates a client and its channel in modals, a refused field shown under it as a sentence', async () => {
    await openSection(page, 'Content', 'Content');
    await page.getByText('No content yet.').waitFor();
    await page.getByRole('button', { name: 'New client' }).click();
    const clientForm = page.getByRole('form', { name: 'New client' });
    await clientForm.getByLabel('Name').fill('Studio owner');
    await clientForm.getByLabel('Email').fill(uniqueEmail('client'));
    await checkAccessibility('content-new-client');
    await clientForm.getByRole('button', { name: 'Create client' }).click();
    await clientForm.waitFor({ state: 'detached' });
    const clients = await t.http.get('/clients', as());
    expect(clients.body).toEqual([expect.objectContaining({ name: 'Studio owner', phone: null })]);
    const clientId: string = clients.body[0]._id;

    const card = page.getByRole('region', { name: 'Studio owner', exact: true });
    await card.getByRole('button', { name: 'New channel' }).click();
    const channelForm = page.getByRole('form', { name: 'New channel of Studio owner' });
    await channelForm.getByLabel('Channel name').fill(channelName);
    await channelForm.getByLabel('Username').fill(username);
    // An address the browser takes and the service does not (http or https only): its message under the field.
    await channelForm.getByLabel('Avatar address').fill('ftp://cdn.example.com/a.png');
    await channelForm.getByRole('button', { name: 'Create channel' }).click();
    await channelForm.getByRole('alert').filter({ hasText: 'Some fields need a change' }).waitFor();
    await expect(channelForm.getByLabel('Avatar address').getAttribute('aria-invalid')).resolves.toBe('true');
    expect(await channelForm.innerText()).not.toMatch(/avatarUrl/);
    await checkAccessibility('content-new-channel-refused');
    await screenshot('content-new-channel-refused');
    await channelForm.getByLabel('Avatar address').fill('https://cdn.example.com/a.png');
    await channelForm.getByRole('button', { name: 'Create channel' }).click();
    await channelForm.waitFor({ state: 'detached' });
    await card.getByRole('link', { name: channelName, exact: true }).waitFor();
    const channels = await t.http.get(`/channels/client/${clientId}`, as());
    expect(channels.body).toEqual([
      expect.objectContaining({
        name: channelName,
        username,
        avatarUrl: 'https://cdn.example.com/a.png',
        role: 'creator',
      }),
    ]);
    channelId = channels.body[0]._id;

    // Edited from the channel's row menu: the new name is stored and shown.
    await settled(page);
    await rowAction(channelName, 'Edit');
    const edit = page.getByRole('form', { name: `Edit ${channelName}` });
    await edit.getByLabel("Owner's role").fill('host');
    await edit.getByRole('button', { name: 'Save channel' }).click();
    await edit.waitFor({ state: 'detached' });
    await card.getByRole('cell', { name: 'host', exact: true }).waitFor();
    expect((await t.http.get(`/channels/${channelId}`, as())).body.role).toBe('host');

    // Another channel of the same client, with a project: a move across channels is tried below.
    const other = await t.http.post(
      '/channels',
      {
        clientId,
        name: 'Side Room',
        username: `side_${randomBytes(4).toString('hex')}`,
        avatarUrl: 'https://cdn.example.com/b.png',
        role: 'creator',
      },
      as(),
    );
    expect(other.status).toBe(200);
    const elsewhere = await t.http.post(
      `/channels/${other.body.id}/projects`,
      { primaryTitle: 'Elsewhere', projectTypeId: 'show' },
      as(),
    );
    expect(elsewhere.status).toBe(201);
    otherChannelProject = elsewhere.body._id;
  });

  it("builds a channel's tree: creates projects and sub-projects, expands and collapses by keyboard", async () => {
    // The content list with both channels of the client, read afresh: the second was made through the API.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Content' }).waitFor();
    await page
      .getByRole('table', { name: 'Channels of Studio owner' })
      .getByRole('link', { name: 'Side Room', exact: true })
      .waitFor();
    await page.getByRole('table', { name: 'Content projects' }).getByRole('link', { name: 'Elsewhere' }).waitFor();
    await settled(page);
    await expectScreenshot(page, 'content-list');
    await openChannel();
    await page.getByText('No projects in this channel yet.').waitFor();
    await createProject('Season One');
    await createProject('Episode 1', 'Season One');
    await createProject('Episode 2', 'Season One');
    await createProject('Part A', 'Episode 1');
    await createProject('Bonus');

    const stored = await storedProjects();
    expect(stored.get('Season One')?.parentId).toBeNull();
    expect(stored.get('Episode 1')?.parentId).toBe(stored.get('Season One')?._id);
    expect(stored.get('Episode 2')?.parentId).toBe(stored.get('Season One')?._id);
    expect(stored.get('Part A')?.parentId).toBe(stored.get('Episode 1')?._id);
    expect(stored.get('Bonus')).toMatchObject({ parentId: null, status: 'draft', access: 'public' });
    bonusId = stored.get('Bonus')!._id;

    // Title, type, status and access each in their own column.
    const seasonRow = tree()
      .getByRole('row')
      .filter({ has: titled('Season One') });
    await expect(seasonRow.getByRole('cell').allInnerTexts()).resolves.toEqual([
      expect.stringMatching(/^\S+\s*Season One\s+2 sub-projects$/),
      'Show',
      // The badge's words, which its style shows in capitals.
      expect.stringMatching(/^draft$/i),
      'Public',
      expect.any(String),
      expect.any(String),
    ]);
    // A disclosure button per project with sub-projects: aria-expanded, the rows it shows, the keyboard.
    const disclosure = page.getByRole('button', { name: '2 sub-projects of Season One' });
    await expect(disclosure.getAttribute('aria-expanded')).resolves.toBe('true');
    await disclosure.focus();
    await page.keyboard.press('Enter');
    await expect(disclosure.getAttribute('aria-expanded')).resolves.toBe('false');
    await node('Episode 2').waitFor({ state: 'detached' });
    await expect(node('Part A').count()).resolves.toBe(0);
    await page.keyboard.press('Space');
    await expect(disclosure.getAttribute('aria-expanded')).resolves.toBe('true');
    await node('Episode 2').waitFor();
    await node('Part A').waitFor();
    await rowAction('Bonus', 'Rename');
    const rename = page.getByRole('form', { name: 'Rename Bonus' });
    await rename.getByLabel('Title').fill('Bonus Cut');
    await rename.getByRole('button', { name: 'Rename' }).click();
    await node('Bonus Cut').waitFor();
    expect((await storedProjects()).has('Bonus Cut')).toBe(true);
    await rowAction('Bonus Cut', 'Rename');
    const back = page.getByRole('form', { name: 'Rename Bonus Cut' });
    await back.getByLabel('Title').fill('Bonus');
    await back.getByRole('button', { name: 'Rename' }).click();
    await node('Bonus').waitFor();
    await settled(page);
    await checkAccessibility('content-tree');
    await screenshot('content-tree');
    await expectScreenshot(page, 'content-tree');
  });

  it("moves projects in a dialog offering only the parents the tree allows (another channel's refusal as a sentence), archives and unarchives, and deletes with everything in it", async () => {
    // Its own sub-projects are not offered: no cycle can be asked for.
    const ids = await storedProjects();
    await rowAction('Season One', 'Move');
    let move = page.getByRole('form', { name: 'Move Season One' });
    const parentOptions = () => move.getByLabel('New parent').locator('option').allInnerTexts();
    // The other channels' projects come with their own reads.
    await move.getByLabel('New parent').locator('option', { hasText: 'Elsewhere' }).waitFor({ state: 'attached' });
    const offered = (await parentOptions()).map((text) => text.trim());
    expect(offered).toEqual(expect.arrayContaining(['None: top level', 'Bonus', 'Elsewhere']));
    expect(offered).not.toEqual(expect.arrayContaining(['Episode 1']));
    expect(offered.some((text) => text.includes('Part A') || text.includes('Season One'))).toBe(false);
    await checkAccessibility('content-move');
    // Under a project of another channel of the same client: refused by the service, as a sentence.
    await move.getByLabel('New parent').selectOption(otherChannelProject);
    await move.getByRole('button', { name: 'Move here' }).click();
    await move.getByText(/another channel/).waitFor();
    expect(await move.innerText()).not.toMatch(/parentId|cascade/);
    await move.getByRole('button', { name: 'Cancel' }).click();
    await move.waitFor({ state: 'detached' });
    expect((await storedProjects()).get('Season One')?.parentId).toBeNull();

    // Episode 2 under Bonus, then to the top level: each move stored.
    const moveTo = async (title: string, parentId: string) => {
      await rowAction(title, 'Move');
      const form = page.getByRole('form', { name: `Move ${title}` });
      await form.getByLabel('New parent').selectOption(parentId);
      await form.getByRole('button', { name: 'Move here' }).click();
      return form;
    };
    await (await moveTo('Episode 2', ids.get('Bonus')!._id)).waitFor({ state: 'detached' });
    await settled(page);
    expect((await storedProjects()).get('Episode 2')?.parentId).toBe(ids.get('Bonus')!._id);
    await page.getByRole('button', { name: '1 sub-project of Bonus' }).waitFor();
    // Season One's three levels under Episode 2, itself on the second, would make five: not offered.
    await rowAction('Season One', 'Move');
    move = page.getByRole('form', { name: 'Move Season One' });
    expect((await parentOptions()).some((text) => text.includes('Episode 2'))).toBe(false);
    await move.getByRole('button', { name: 'Cancel' }).click();
    await move.waitFor({ state: 'detached' });
    await (await moveTo('Episode 2', '')).waitFor({ state: 'detached' });
    await settled(page);
    expect((await storedProjects()).get('Episode 2')?.parentId).toBeNull();
    await page.getByRole('button', { name: '1 sub-project of Season One' }).waitFor();

    // Archive and unarchive, from the row menu.
    const rowIn = (status: string) =>
      tree()
        .locator(`tr[data-status="${status}"]`)
        .filter({ has: titled('Episode 2') });
    await rowAction('Episode 2', 'Archive');
    await rowIn('archived').waitFor();
    expect((await storedProjects()).get('Episode 2')?.status).toBe('archived');
    await rowAction('Episode 2', 'Unarchive');
    await rowIn('draft').waitFor();
    expect((await storedProjects()).get('Episode 2')?.status).toBe('draft');

    // Delete: refused while it holds sub-projects, then deleted with them.
    const before = await storedProjects();
    await rowAction('Season One', 'Delete');
    const panel = page.getByRole('group', { name: 'Delete Season One' });
    await panel.getByRole('button', { name: 'Delete Season One' }).click();
    const refused = await panel.getByRole('alert').innerText();
    expect(refused).toMatch(/Season One holds 2 sub-projects\. Deleting it deletes them too/);
    // The service's words for the way round are not the person's.
    expect(refused).not.toMatch(/cascade/);
    expect((await storedProjects()).has('Season One')).toBe(true);
    await checkAccessibility('content-delete-refused');
    await screenshot('content-delete-refused');
    await panel.getByRole('button', { name: 'Delete with everything in it' }).click();
    await node('Season One').waitFor({ state: 'detached' });
    await settled(page);
    const after = await storedProjects();
    expect([...after.keys()].sort()).toEqual(['Bonus', 'Episode 2']);
    for (const title of ['Season One', 'Episode 1', 'Part A']) {
      expect(await t.db.collection('projects').countDocuments({ _id: new ObjectId(before.get(title)!._id) })).toBe(0);
    }
    await screenshot('content-tree-after');
  });

  it('adds a collaborator by email, changes the role, shows a 403 naming the role to a member, and removes the collaborator', async () => {
    const add = page.getByRole('form', { name: 'Add a collaborator' });
    await add.getByLabel("Member's email").fill('nobody@example.com');
    await add.getByRole('button', { name: 'Add collaborator' }).click();
    await add.getByText('No member of the account has this email').waitFor();
    await add.getByLabel("Member's email").fill(member.email);
    await add.getByLabel('Channel role').selectOption('viewer');
    await add.getByRole('button', { name: 'Add collaborator' }).click();
    const row = page.locator(`tr[data-collaborator="${member.id}"]`);
    await row.waitFor();
    await settled(page);
    const stored = () =>
      t.db
        .collection('channel_collaborators')
        .findOne({ channelId: new ObjectId(channelId), userId: new ObjectId(member.id) });
    expect(await stored()).toMatchObject({ role: 'viewer', expiresAt: null });

    await row.getByLabel(`New role for ${member.email}`).selectOption('editor');
    await row.getByRole('button', { name: `Change role of ${member.email}` }).click();
    // The role cell shows the answer read again after the change.
    await row
      .locator('td')
      .nth(1)
      .filter({ hasText: /^editor$/ })
      .waitFor();
    await settled(page);
    expect(await stored()).toMatchObject({ role: 'editor' });
    await checkAccessibility('content-collaborators');
    await screenshot('content-collaborators');

    // The member, an editor of the channel, may not manage its collaborators: the API's 403 as it is.
    const other = await dashboard.newPage();
    try {
      await signInThroughDashboard(other.page, t.baseUrl, member.email, member.password);
      await other.page.goto(`${t.baseUrl}/dashboard/content/channels/${channelId}`);
      const form = other.page.getByRole('form', { name: 'Add a collaborator' });
      await form.getByLabel("Member's email").fill(admin.email);
      await form.getByRole('button', { name: 'Add collaborator' }).click();
      await expect(form.getByRole('alert').innerText()).resolves.toContain(
        'This needs the channel role owner or above, or the platform role admin',
      );
      await checkAccessibility('content-collaborators-refused', other.page);
    } finally {
      await other.context.close();
    }

    await row.getByRole('button', { name: `Remove ${member.email}` }).click();
    await row.waitFor({ state: 'detached' });
    expect(await stored()).toBeNull();
  });

  it("sets a project's access with its meaning, makes a share link shown once, and grants and revokes access", async () => {
    await page.getByRole('link', { name: 'Bonus', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Bonus' }).waitFor();
    await settled(page);
    await page.getByRole('region', { name: 'Assets' }).waitFor();

    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Status').selectOption('published');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('button', { name: 'Edit' }).waitFor();
    await page.getByLabel('Access').selectOption('linkPrivate');
    await page.getByRole('button', { name: 'Save access' }).click();
    await page.locator('[data-access-meaning="linkPrivate"]').waitFor();
    await expect(page.locator('[data-access-meaning]').innerText()).resolves.toMatch(
      /^Link only: Only people holding one of its share links/,
    );
    const project = await t.http.get(`/projects/${bonusId}`, as());
    expect(project.body).toMatchObject({ status: 'published', access: 'linkPrivate' });

    // What the link's page will show: an image (as a link), a published sub-project, and not a draft one.
    expect(
      (await t.http.put(`/projects/${bonusId}`, { landscapeImg: 'https://cdn.example.com/bonus-landscape.jpg' }, as()))
        .status,
    ).toBe(200);
    for (const [primaryTitle, status] of [
      ['Bonus Track', 'published'],
      ['Hidden Draft', 'draft'],
    ]) {
      expect(
        (
          await t.http.post(
            `/channels/${channelId}/projects`,
            { primaryTitle, projectTypeId: 'show', status, parentId: bonusId },
            as(),
          )
        ).status,
      ).toBe(201);
    }

    const links = page.getByRole('region', { name: 'Share links' });
    await links.getByRole('button', { name: 'Create a publishable key' }).click();
    // Offered while the field is empty: gone once the new key fills it.
    await links.getByRole('button', { name: 'Create a publishable key' }).waitFor({ state: 'detached' });
    await expect(links.getByLabel('Publishable key').inputValue()).resolves.toMatch(/^pk_test_/);
    await links.getByLabel('Password (optional)').fill(password);
    await links.getByRole('button', { name: 'Create share link' }).click();
    const shown = page.getByRole('region', { name: 'Share link address' });
    await shown.waitFor();
    shareUrl = await shown.getByRole('textbox').inputValue();
    expect(shareUrl).toMatch(
      new RegExp(`^${t.baseUrl}/dashboard/shared/${bonusId}#token=shr_[A-Za-z0-9_-]{43}&key=pk_test_`),
    );
    await shown.getByRole('button', { name: 'Copy' }).click();
    await shown
      .getByText(/Copied|Selected/)
      .first()
      .waitFor();
    const token = new URLSearchParams(shareUrl.split('#')[1]).get('token')!;
    const stored = await t.db
      .collection('share_links')
      .find({ contentProjectId: new ObjectId(bonusId) })
      .toArray();
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(token);
    const row = links.locator(`tr[data-share-link="${String(stored[0]._id)}"]`);
    await expect(row.innerText()).resolves.toMatch(new RegExp(`${token.slice(0, 12)}…\\s+Yes\\s+0\\s+never`));

    const grants = page.getByRole('region', { name: 'Grants' });
    await grants.getByLabel('Email or user id').fill('Friend@Example.com');
    await grants.getByLabel('Grant role').selectOption('viewer');
    await grants.getByRole('button', { name: 'Grant access' }).click();
    const grantRow = grants.getByRole('row').filter({ hasText: 'friend@example.com' });
    await grantRow.waitFor();
    let listed = await t.http.get(`/projects/${bonusId}/grants`, as());
    expect(listed.body).toEqual([
      expect.objectContaining({ email: 'friend@example.com', role: 'viewer', revokedAt: null }),
    ]);
    await checkAccessibility('content-project');
    await screenshot('content-project');
    await expectScreenshot(page, 'content-project');
    await rowAction('the grant of friend@example.com', 'Revoke');
    await page
      .getByRole('dialog', { name: 'Revoke the grant of friend@example.com' })
      .getByRole('button', { name: 'Revoke' })
      .click();
    await grantRow.getByText('Revoked').waitFor();
    listed = await t.http.get(`/projects/${bonusId}/grants`, as());
    expect(listed.body[0].revokedAt).toEqual(expect.any(String));
  });

  it('opens the share link in a browser that never signed in: a wrong password refused, the right one shows the project; revoked, a not-found page', async () => {
    const fresh = await dashboard.newPage();
    const requests: string[] = [];
    fresh.page.on('request', (request) => requests.push(new URL(request.url()).pathname));
    try {
      await fresh.page.goto(shareUrl);
      await fresh.page.getByRole('heading', { level: 1, name: 'This link needs a password' }).waitFor();
      await checkAccessibility('shared-password', fresh.page);
      await fresh.page.getByLabel('Password', { exact: true }).fill('not the password');
      await fresh.page.getByRole('button', { name: 'Open' }).click();
      await fresh.page.getByText('Wrong share link password').waitFor();
      await fresh.page.getByLabel('Password', { exact: true }).fill(password);
      await fresh.page.getByRole('button', { name: 'Open' }).click();
      await fresh.page.getByRole('heading', { level: 1, name: 'Bonus' }).waitFor();
      await fresh.page.getByRole('link', { name: 'Bonus Track' }).waitFor();
      await expect(fresh.page.getByRole('link', { name: 'Landscape' }).getAttribute('href')).resolves.toBe(
        'https://cdn.example.com/bonus-landscape.jpg',
      );
      await settled(fresh.page);
      await expect(fresh.page.getByText('Hidden Draft').count()).resolves.toBe(0);
      await checkAccessibility('shared-project', fresh.page);
      await screenshot('shared-project', fresh.page);
      await expectScreenshot(fresh.page, 'shared-project');
      await fresh.page.getByRole('link', { name: 'Bonus Track' }).click();
      await fresh.page.getByRole('heading', { level: 1, name: 'Bonus Track' }).waitFor();
      // Its children read too: every read the page makes is done.
      await fresh.page.getByText('Nothing else to see inside.').waitFor();
      // The page read the viewer routes only: no session, no dashboard API.
      expect(
        requests.filter((path) => !path.startsWith('/dashboard')).every((path) => path.startsWith('/viewer/')),
      ).toBe(true);
      expect(requests.some((path) => path.startsWith('/viewer/projects/'))).toBe(true);

      const links = await t.http.get(`/projects/${bonusId}/share-links`, as());
      expect(links.body[0].views).toBeGreaterThan(0);

      // Revoked in the dashboard: the same address now shows a not-found page.
      const linkRow = page.locator(`tr[data-share-link="${links.body[0].id}"]`);
      await rowAction(`the link ${links.body[0].start}`, 'Revoke');
      await page
        .getByRole('dialog', { name: /^Revoke the link/ })
        .getByRole('button', { name: 'Revoke' })
        .click();
      await linkRow.getByText('Revoked').waitFor();
      // The list, read again after the change, counts the reads the page made.
      await expect(linkRow.locator('td').nth(2).innerText()).resolves.toBe(String(links.body[0].views));
      expect((await t.http.get(`/projects/${bonusId}/share-links`, as())).body[0].revokedAt).toEqual(
        expect.any(String),
      );
      await fresh.page.goto('about:blank');
      await fresh.page.goto(shareUrl);
      await fresh.page.getByRole('heading', { level: 1, name: 'Nothing to show here' }).waitFor();
      await checkAccessibility('shared-not-found', fresh.page);
      await screenshot('shared-not-found', fresh.page);
    } finally {
      await fresh.context.close();
    }
  });

  it('had no serious or critical accessibility violation and no script, style or policy error on any page', () => {
    expect(dashboard.accessibility.map(({ page: name }) => name)).toEqual(
      expect.arrayContaining([
        'content-new-client',
        'content-new-channel-refused',
        'content-tree',
        'content-move',
        'content-delete-refused',
        'content-collaborators',
        'content-project',
        'shared-password',
        'shared-project',
        'shared-not-found',
      ]),
    );
    expect(dashboard.accessibility.filter((entry) => entry.violations.length > 0)).toEqual([]);
    expect(dashboard.pageProblems).toEqual([]);
  });

  function checkAccessibility(name: string, on: Page = page): Promise<void> {
    return dashboard.checkAccessibility(name, on);
  }

  function screenshot(name: string, on: Page = page): Promise<void> {
    return dashboard.screenshot(name, on);
  }
});
