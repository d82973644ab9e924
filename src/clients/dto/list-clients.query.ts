import { IntersectionType } from '@nestjs/swagger';
import { ContentListQuery, IncludeDeletedQuery } from '../../common/paging/content-list.query';

export class ListClientsQuery extends IntersectionType(ContentListQuery, IncludeDeletedQuery) {}
