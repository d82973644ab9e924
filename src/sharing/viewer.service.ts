import { Inject, Injectable, NotFoundException, UnauthorizedException } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import * as bcrypt from 'bcrypt';
import { Types } from 'mongoose';
import { Authentication } from '../access/authentication';
import type { Asset } from '../assets/asset.schema';
import { AssetDelivery } from '../assets/asset-delivery';
import { ASSET_NOT_FOUND, AssetsService } from '../assets/assets.service';
import { Clock } from '../common/clock/clock';
import { TooManyRequestsException } from '../common/http/too-many-requests.exception';
import { rateLimitsConfig } from '../config/rate-limits.config';
import { RateLimiter } from '../rate-limits/rate-limiter';
import type { ContentListQuery } from '../common/paging/content-list.query';
import type { ContentPage } from '../common/paging/total-count';
import { MAX_TREE_DEPTH, type Project } from '../projects/project.schema';
import { ProjectsService } from '../projects/projects.service';
import type { TenantScope } from '../tenancy/tenant-scope';
import { UsersService } from '../identity/users/users.service';
import type { ViewerProjectResponse } from './dto/viewer-project.response';
import { GrantsRepository } from './grants.repository';
import { hasShareTokenForm, hashShareToken } from './share-link-token';
import { ShareLinksRepository } from './share-links.repository';
import { toViewerProject } from './sharing.mapper';

/** What a viewer presents beside the publishable key. */
export interface ViewerCredentials {
  shareToken?: string;
  sharePassword?: string;
  /** A user's access token (`X-Viewer-Token`). */
  viewerToken?: string;
}

/** Hidden, unknown, archived, or shown only through a link or a grant the viewer lacks: all the same answer. */
export const VIEWER_NOT_FOUND = 'Project not found';
export const SHARE_PASSWORD_NEEDED = 'This share link needs its password: send it in X-Share-Password';
export const SHARE_PASSWORD_WRONG = 'Wrong share link password';

/** A live link the viewer presented, and whether its password (if it has one) was given right. */
interface PresentedLink {
  id: Types.ObjectId;
  contentProjectId: string;
  passwordHash: string | null;
}

/**
 * Who may see content. A project is visible to a viewer when it and every ancestor are `published`
 * and each of them lets the viewer in: `public` lets anyone in; `linkPrivate` only a live share link
 * of that project or one above it; `permissions` only a user with a live grant on that project or
 * one above it. So a child is never more visible than its parent, and an archived or draft ancestor
 * hides the whole subtree. A viewer who may not see a project gets the same 404 as for a project
 * that does not exist; only a live link whose password is missing or wrong is 401. An asset's
 * bytes are seen exactly when its project is and the asset is `ready`; each such read counts one
 * view of the link and of the grant it rested on.
 */
@Injectable()
export class ViewerService {
  constructor(
    private readonly projects: ProjectsService,
    private readonly links: ShareLinksRepository,
    private readonly grants: GrantsRepository,
    private readonly users: UsersService,
    private readonly tokens: Authentication,
    private readonly clock: Clock,
    private readonly assets: AssetsService,
    private readonly delivery: AssetDelivery,
    private readonly limiter: RateLimiter,
    @Inject(rateLimitsConfig.KEY) private readonly limits: ConfigType<typeof rateLimitsConfig>,
  ) {}

  async viewProject(
    scope: TenantScope,
    projectId: string,
    credentials: ViewerCredentials,
  ): Promise<ViewerProjectResponse> {
    const { chain, link } = await this.visibleChain(scope, projectId, credentials);
    if (link) await this.links.countView(scope, link.id, this.clock.now());
    return toViewerProject(chain[0]);
  }

  /**
   * A ready asset whose project the viewer may see (the same rules as `viewProject`), and what
   * counts one view of the link and the grant the decision rested on: the caller runs it once bytes
   * are sure to be sent. Unknown, not ready and hidden are one and the same 404.
   */
  async assetToView(
    scope: TenantScope,
    assetId: string,
    credentials: ViewerCredentials,
  ): Promise<{ asset: Asset & { sha256: string }; countView: () => Promise<void> }> {
    const asset = await this.assets.get(scope, assetId);
    if (asset.status !== 'ready' || !asset.sha256) throw new NotFoundException(ASSET_NOT_FOUND);
    this.delivery.assertReady(asset); // narrows: a ready asset has its SHA-256
    let seen: { link: PresentedLink | null; grant: Types.ObjectId | null };
    try {
      seen = await this.visibleChain(scope, String(asset.contentProjectId), credentials);
    } catch (error) {
      if (error instanceof NotFoundException) throw new NotFoundException(ASSET_NOT_FOUND);
      throw error;
    }
    const { link, grant } = seen;
    return {
      asset,
      countView: async () => {
        const at = this.clock.now();
        await Promise.all([
          link ? this.links.countView(scope, link.id, at) : undefined,
          grant ? this.grants.countView(scope, grant, at) : undefined,
        ]);
      },
    };
  }

  /**
   * The visible children of a visible project, published, in id order. A child that asks for a
   * link or a grant is listed when the viewer's link or grant is on the project, an ancestor, or
   * that child itself.
   */
  async viewChildren(
    scope: TenantScope,
    projectId: string,
    credentials: ViewerCredentials,
    query: ContentListQuery,
  ): Promise<ContentPage<ViewerProjectResponse>> {
    const { chain, link: usedLink } = await this.visibleChain(scope, projectId, credentials);
    const chainIds = chain.map((project) => String(project._id));
    const parent = chain[0]._id;

    // A link the project's visibility did not rest on still opens children: the project's, an ancestor's, or a child's own.
    let link = usedLink;
    if (!link) {
      const presented = await this.presentedLink(scope, credentials);
      if (
        presented &&
        (chainIds.includes(presented.contentProjectId) ||
          (await this.isChildOf(scope, presented.contentProjectId, parent)))
      ) {
        await this.checkPassword(presented, credentials);
        link = presented;
      }
    }
    const granted = credentials.viewerToken
      ? await this.grantedProjects(scope, credentials.viewerToken)
      : new Map<string, Types.ObjectId>();

    const linkPrivate = !link ? [] : chainIds.includes(link.contentProjectId) ? 'all' : [link.contentProjectId];
    const permissions = chainIds.some((id) => granted.has(id)) ? 'all' : [...granted.keys()];
    const conditions = {
      status: 'published',
      $or: [
        { access: 'public' },
        accessCondition('linkPrivate', linkPrivate),
        accessCondition('permissions', permissions),
      ],
    };
    const { rows, total } = await this.projects.pageChildren(scope, parent, conditions, query.skip, query.limit);
    if (link) await this.links.countView(scope, link.id, this.clock.now());
    return { items: rows.map(toViewerProject), total };
  }

  /**
   * The project and its ancestors, when the viewer may see the project; else 404 (or 401 for a live
   * link whose password is missing or wrong, once nothing else hides the project). With the link
   * and the grant (the nearest one that sufficed) the decision rested on, if it did.
   */
  private async visibleChain(
    scope: TenantScope,
    projectId: string,
    credentials: ViewerCredentials,
  ): Promise<{ chain: Project[]; link: PresentedLink | null; grant: Types.ObjectId | null }> {
    const chain = await this.projects.findWithAncestors(scope, projectId);
    if (!chain || chain.some((project) => project.status !== 'published'))
      throw new NotFoundException(VIEWER_NOT_FOUND);
    // The link and the grants are read only when the chain asks for them.
    const link = highest(chain, 'linkPrivate') >= 0 ? await this.presentedLink(scope, credentials) : null;
    const granted =
      highest(chain, 'permissions') >= 0 && credentials.viewerToken
        ? await this.grantedProjects(scope, credentials.viewerToken)
        : new Map<string, Types.ObjectId>();
    const admitted = admits(chain, link, granted);
    if (!admitted) throw new NotFoundException(VIEWER_NOT_FOUND);
    if (admitted.link) await this.checkPassword(admitted.link, credentials);
    return { chain, ...admitted };
  }

  /**
   * Of these projects, those the viewer may see, by the rules of `viewProject`, as viewers see them,
   * in the order given: hidden and unknown ones are left out alike. The search's viewer route asks.
   * A live link's password is asked (401 when missing or wrong) only when some project needs the link.
   */
  async visibleAmong(
    scope: TenantScope,
    ids: readonly string[],
    credentials: ViewerCredentials,
  ): Promise<ViewerProjectResponse[]> {
    if (ids.length === 0) return [];
    const link = await this.presentedLink(scope, credentials);
    const granted = credentials.viewerToken
      ? await this.grantedProjects(scope, credentials.viewerToken)
      : new Map<string, Types.ObjectId>();
    let passwordChecked = false;
    const visible: ViewerProjectResponse[] = [];
    for (let start = 0; start < ids.length; start += VISIBILITY_BATCH) {
      const batch = ids.slice(start, start + VISIBILITY_BATCH);
      const records = await this.projects.findManyWithAncestors(scope, batch);
      for (const id of batch) {
        const chain = chainOf(records, id);
        const admitted = chain ? admits(chain, link, granted) : null;
        if (!chain || !admitted) continue;
        if (admitted.link && !passwordChecked) {
          await this.checkPassword(admitted.link, credentials);
          passwordChecked = true;
        }
        visible.push(toViewerProject(chain[0]));
      }
    }
    return visible;
  }

  /** The live (unrevoked, unexpired) link of the presented token in the scope; null for none, or a token of no live link. */
  private async presentedLink(scope: TenantScope, credentials: ViewerCredentials): Promise<PresentedLink | null> {
    const token = credentials.shareToken;
    if (!token || !hasShareTokenForm(token)) return null;
    const link = await this.links.findByHash(scope, hashShareToken(token));
    if (!link || link.revokedAt) return null;
    if (link.expiresAt && link.expiresAt.getTime() <= this.clock.now().getTime()) return null;
    return { id: link._id, contentProjectId: String(link.contentProjectId), passwordHash: link.passwordHash ?? null };
  }

  /**
   * A link's password, guessed at most `SHARE_PASSWORD_MAX_FAILURES` times a window whoever guesses:
   * each try is counted per link in the shared rate-limit store before the password is compared (so
   * a burst of concurrent guesses is counted whole), past the limit it is 429 (`Retry-After`) without
   * a comparison, so a right guess then tells nothing either; a right password takes its count back.
   */
  private async checkPassword(link: PresentedLink, credentials: ViewerCredentials): Promise<void> {
    if (!link.passwordHash) return;
    const key = `share-password:${String(link.id)}`;
    const { maxFailures, windowMs } = this.limits.sharePassword;
    if (!credentials.sharePassword) {
      const failed = await this.limiter.failures(key);
      if (failed.count >= maxFailures)
        throw new TooManyRequestsException('Too many wrong passwords for this share link', failed.resetSeconds);
      throw new UnauthorizedException(SHARE_PASSWORD_NEEDED);
    }
    const counted = await this.limiter.countFailure(key, windowMs);
    if (counted.count > maxFailures)
      throw new TooManyRequestsException('Too many wrong passwords for this share link', counted.resetSeconds);
    if (!(await bcrypt.compare(credentials.sharePassword, link.passwordHash)))
      throw new UnauthorizedException(SHARE_PASSWORD_WRONG);
    await this.limiter.uncountFailure(key);
  }

  /**
   * The content projects the token's user holds a live grant on, by their id or their verified email, each
   * with one such grant (the first found); none for an invalid token.
   */
  private async grantedProjects(scope: TenantScope, viewerToken: string): Promise<Map<string, Types.ObjectId>> {
    const granted = new Map<string, Types.ObjectId>();
    const userId = await this.tokens.userOfToken(viewerToken);
    if (!userId) return granted;
    const user = await this.users.findById(userId);
    if (!user) return granted;
    const now = this.clock.now().getTime();
    // A grant to an address reaches only the user who proved they hold it: an unverified signup with it does not.
    const email = user.email && user.emailVerifiedAt ? user.email.toLowerCase() : null;
    const grants = await this.grants.ofPerson(scope, new Types.ObjectId(userId), email);
    for (const grant of grants) {
      const project = String(grant.contentProjectId);
      if ((!grant.expiresAt || grant.expiresAt.getTime() > now) && !granted.has(project))
        granted.set(project, grant._id);
    }
    return granted;
  }

  private async isChildOf(scope: TenantScope, projectId: string, parent: Types.ObjectId): Promise<boolean> {
    const project = await this.projects.findRecord(scope, projectId);
    return Boolean(project?.parentId && project.parentId.equals(parent));
  }
}

/** Projects whose visibility `visibleAmong` decides with one read a tree level. */
const VISIBILITY_BATCH = 500;

/**
 * Whether a viewer holding `link` (a live one, or none) and `granted` may see the project heading
 * `chain` (it, then its ancestors): every one published; a link at or above the highest project that
 * asks for one; a grant at or above the highest that asks for one. With the link and the grant (the
 * nearest one that sufficed) the decision rested on; null when the viewer may not see it.
 */
function admits(
  chain: readonly Project[],
  link: PresentedLink | null,
  granted: ReadonlyMap<string, Types.ObjectId>,
): { link: PresentedLink | null; grant: Types.ObjectId | null } | null {
  if (chain.some((project) => project.status !== 'published')) return null;
  const linkFrom = highest(chain, 'linkPrivate');
  const grantFrom = highest(chain, 'permissions');
  const ids = chain.map((project) => String(project._id));
  if (linkFrom >= 0 && (!link || ids.indexOf(link.contentProjectId) < linkFrom)) return null;
  let grant: Types.ObjectId | null = null;
  if (grantFrom >= 0) {
    const at = ids.findIndex((id, index) => index >= grantFrom && granted.has(id));
    if (at < 0) return null;
    grant = granted.get(ids[at]) ?? null;
  }
  return { link: linkFrom >= 0 ? link : null, grant };
}

/** The project, then its ancestors nearest first, from records read by id; null when the project is not among them. */
function chainOf(records: ReadonlyMap<string, Project>, id: string): Project[] | null {
  const project = records.get(id);
  if (!project) return null;
  const chain = [project];
  let next = project.parentId ? String(project.parentId) : null;
  while (next && chain.length <= MAX_TREE_DEPTH) {
    const parent = records.get(next);
    if (!parent) break;
    chain.push(parent);
    next = parent.parentId ? String(parent.parentId) : null;
  }
  return chain;
}

/** The index, in the chain (the project first), of the highest project with this access; -1 for none. */
function highest(chain: readonly Project[], access: Project['access']): number {
  for (let index = chain.length - 1; index >= 0; index--) if (chain[index].access === access) return index;
  return -1;
}

/** Children of this access: every one, some by id, or (an empty list) none. */
function accessCondition(access: Project['access'], ids: 'all' | string[]): Record<string, unknown> {
  if (ids === 'all') return { access };
  return { access, _id: { $in: ids.map((id) => new Types.ObjectId(id)) } };
}
