import { randomBytes } from 'node:crypto';
import { ObjectId } from 'mongodb';
import { Page } from 'playwright-core';
import { createFirstAdmin, createUser, TestUser, uniqueEmail } from '../support/auth';
import { createTestApp, TestApp } from '../support/test-app';
import { DashboardBrowser, openSection, settled, signInThroughDashboard } from './support/dashboard-browser';

// jest reads testTimeout from the top-level configuration only, not from a project's.
jest.setTimeout(180_000);

/**
 * The dashboard's Content section, driven in Chromium: a channel's project tree (create, expand and
 * collapse by keyboard, move with the API's refusals, archive, delete with its sub-projects), a
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
  const tree = () => page.getByRole('list', { name: `Projects of ${channelName}` });
  /** A project's link in the tree (its buttons are named after it). */
  const node = (title: string) => tree().getByRole('link', { name: title, exact: true });

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
    await page.getByRole('link', { name: `${channelName} @${username}` }).click();
    await page.getByRole('heading', { level: 1, name: new RegExp(`^${channelName}`) }).waitFor();
    await settled(page);
  }

  async function createProject(title: string, parent?: string): Promise<void> {
    if (parent) await page.getByRole('button', { name: `Add sub-project to ${parent}` }).click();
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
    const client = await t.http.post('/clients', { name: 'Studio owner', email: uniqueEmail('client') }, as());
    expect(client.status).toBe(201);
    const channel = await t.http.post(
      '/channels',
      {
        clientId: client.body.id,
        name: channelName,
        username,
        avatarUrl: 'https://cdn.example.com/a.png',
        role: 'creator',
      },
      as(),
    );
    expect(channel.status).toBe(200);
    channelId = channel.body.id;
    const other = await t.http.post(
      '/channels',
      {
        clientId: client.body.id,
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
    dashboard = await DashboardBrowser.launch();
    ({ page } = dashboard);
    await signInThroughDashboard(page, t.baseUrl, admin.email, admin.password);
  });

  afterAll(async () => {
    await dashboard?.close();
    await t?.close();
  });

  it("builds a channel's tree: creates projects and sub-projects, expands and collapses by keyboard", async () => {
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

    // A disclosure button per project with sub-projects: aria-expanded, the list it controls, the keyboard.
    const disclosure = page.getByRole('button', { name: '2 sub-projects of Season One' });
    await expect(disclosure.getAttribute('aria-expanded')).resolves.toBe('true');
    const controlled = page.locator(`#${await disclosure.getAttribute('aria-controls')}`);
    await expect(controlled.isVisible()).resolves.toBe(true);
    await disclosure.focus();
    await page.keyboard.press('Enter');
    await expect(disclosure.getAttribute('aria-expanded')).resolves.toBe('false');
    await expect(controlled.isVisible()).resolves.toBe(false);
    await page.keyboard.press('Space');
    await expect(disclosure.getAttribute('aria-expanded')).resolves.toBe('true');
    await page.getByRole('link', { name: 'Episode 2', exact: true }).waitFor();
    await checkAccessibility('content-tree');
    await screenshot('content-tree');
  });

  it("moves projects, showing the API's refusals (a cycle, another channel, a fifth level), archives and unarchives, and deletes with the sub-projects", async () => {
    // Under its own sub-project: a cycle, refused with the API's message.
    const ids = await storedProjects();
    await page.getByRole('button', { name: 'Move Season One' }).click();
    let move = page.getByRole('form', { name: 'Move Season One' });
    await move.getByLabel('New parent').selectOption(ids.get('Part A')!._id);
    await move.getByRole('button', { name: 'Move here' }).click();
    await expect(move.getByRole('alert').innerText()).resolves.toContain(
      'A project cannot move under itself or one of its sub-projects',
    );
    // Under a project of another channel of the same client: refused too.
    await move.getByLabel('New parent').selectOption(otherChannelProject);
    await move.getByRole('button', { name: 'Move here' }).click();
    // The alert still holds the cycle's message until this answer comes: wait for the new one.
    await move
      .getByRole('alert')
      .filter({ hasText: /another channel/ })
      .waitFor();
    await expect(move.getByRole('alert').innerText()).resolves.toMatch(/another channel/);
    await move.getByRole('button', { name: 'Cancel' }).click();
    expect((await storedProjects()).get('Season One')?.parentId).toBeNull();

    // Episode 2 under Bonus, then to the top level: each move stored.
    const moveTo = async (title: string, parentId: string) => {
      await page.getByRole('button', { name: `Move ${title}` }).click();
      const form = page.getByRole('form', { name: `Move ${title}` });
      await form.getByLabel('New parent').selectOption(parentId);
      await form.getByRole('button', { name: 'Move here' }).click();
      return form;
    };
    await (await moveTo('Episode 2', ids.get('Bonus')!._id)).waitFor({ state: 'detached' });
    await settled(page);
    expect((await storedProjects()).get('Episode 2')?.parentId).toBe(ids.get('Bonus')!._id);
    await page.getByRole('button', { name: '1 sub-project of Bonus' }).click();
    // Season One's three levels under Episode 2, itself on the second: five levels, refused.
    move = await moveTo('Season One', ids.get('Episode 2')!._id);
    await expect(move.getByRole('alert').innerText()).resolves.toContain('A project tree has at most 4 levels');
    await move.getByRole('button', { name: 'Cancel' }).click();
    await (await moveTo('Episode 2', '')).waitFor({ state: 'detached' });
    await settled(page);
    expect((await storedProjects()).get('Episode 2')?.parentId).toBeNull();
    await page.getByRole('button', { name: '1 sub-project of Season One' }).waitFor();

    // Archive and unarchive.
    await page.getByRole('button', { name: 'Archive Episode 2', exact: true }).click();
    await page.getByRole('button', { name: 'Unarchive Episode 2', exact: true }).waitFor();
    expect((await storedProjects()).get('Episode 2')?.status).toBe('archived');
    await page.getByRole('button', { name: 'Unarchive Episode 2', exact: true }).click();
    await page.getByRole('button', { name: 'Archive Episode 2', exact: true }).waitFor();
    expect((await storedProjects()).get('Episode 2')?.status).toBe('draft');

    // Delete: refused while it holds sub-projects, then deleted with them.
    const before = await storedProjects();
    await tree().getByRole('button', { name: 'Delete Season One' }).click();
    const panel = page.getByRole('group', { name: 'Delete Season One' });
    await panel.getByRole('button', { name: 'Delete Season One' }).click();
    await expect(panel.getByRole('alert').innerText()).resolves.toMatch(
      /The project has sub-projects.*It holds 2 sub-projects/s,
    );
    expect((await storedProjects()).has('Season One')).toBe(true);
    await checkAccessibility('content-delete-refused');
    await panel.getByRole('button', { name: 'Delete with its 2 sub-projects' }).click();
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
      .first()
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
    await grantRow.getByRole('button', { name: 'Revoke the grant of friend@example.com' }).click();
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
      await linkRow.getByRole('button', { name: /^Revoke the link/ }).click();
      await linkRow.getByText('Revoked').waitFor();
      // The list, read again after the change, counts the reads the page made.
      await expect(linkRow.locator('td').nth(1).innerText()).resolves.toBe(String(links.body[0].views));
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
        'content-tree',
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
