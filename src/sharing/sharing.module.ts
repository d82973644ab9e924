import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { AssetsModule } from '../assets/assets.module';
import { AccessModule } from '../access/access.module';
import { ProjectsModule } from '../projects/projects.module';
import { UsersModule } from '../identity/users/users.module';
import { Grant, GrantSchema } from './grant.schema';
import { GrantViewRecord, GrantViewRecordSchema } from './grant-view.schema';
import { GrantsRepository } from './grants.repository';
import { ShareLink, ShareLinkSchema } from './share-link.schema';
import { LinkView, LinkViewSchema } from './share-link-view.schema';
import { ShareLinksRepository } from './share-links.repository';
import { SharingController } from './sharing.controller';
import { SharingListener } from './sharing.listener';
import { SharingService } from './sharing.service';
import { ViewerController } from './viewer.controller';
import { ViewerService } from './viewer.service';

/**
 * Sharing content with viewers: share links and grants of content projects, and the read-only
 * `/viewer` routes a publishable key calls. Its invariant: a viewer sees a project only when the
 * project and every ancestor are published and each lets the viewer in (public; a live share link
 * at or above it; a live grant at or above it), so a child is never more visible than its parent,
 * and a project a viewer may not see answers exactly as one that does not exist (ViewerService);
 * an asset's bytes are read by viewers exactly when its project could be, and it is `ready`. A view
 * through a link or a grant is counted by inserting one record (`share_link_views`, `grant_views`)
 * and counting them, never by a counter's `$inc`, which FerretDB applies as a read-modify-write that
 * loses concurrent views. Links and grants live only as long as their content project: the projects
 * module's `projects.deleted` takes them (and their views) along.
 */
@Module({
  imports: [
    MongooseModule.forFeature([
      { name: ShareLink.name, schema: ShareLinkSchema },
      { name: Grant.name, schema: GrantSchema },
      { name: LinkView.name, schema: LinkViewSchema },
      { name: GrantViewRecord.name, schema: GrantViewRecordSchema },
    ]),
    ProjectsModule,
    UsersModule,
    AccessModule,
    AssetsModule,
  ],
  controllers: [SharingController, ViewerController],
  providers: [ShareLinksRepository, GrantsRepository, SharingService, ViewerService, SharingListener],
  exports: [ViewerService],
})
export class SharingModule {}
