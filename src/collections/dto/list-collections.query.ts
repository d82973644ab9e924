import { IntersectionType } from '@nestjs/swagger';
import { ContentListQuery, IncludeDeletedQuery } from '../../common/paging/content-list.query';

export class ListCollectionsQuery extends IntersectionType(ContentListQuery, IncludeDeletedQuery) {}
