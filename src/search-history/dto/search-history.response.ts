import { ApiProperty } from '@nestjs/swagger';
import { SEARCH_SURFACES, type SearchSurface } from '../search-history-entry.schema';

export class SearchHistoryEntryView {
  @ApiProperty({ example: '665f1f77bcf86cd799439011' })
  id: string;

  @ApiProperty({
    enum: SEARCH_SURFACES,
    description: 'Which search box: content projects, customers or payments',
    example: 'customers',
  })
  surface: SearchSurface;

  @ApiProperty({
    description: 'The words or the query, as last typed (spacing collapsed)',
    example: "email:'jenny@example.com'",
  })
  query: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'The filters the search ran with, by name (`status`, `access`, `channelId`, `sort`...)',
    example: { status: 'published' },
  })
  filters: Record<string, string>;

  @ApiProperty({ format: 'date-time', description: 'When it was last run: a repeat moves the search to the top' })
  searchedAt: string;
}

export class SearchHistorySettingsView {
  @ApiProperty({ description: 'Whether recording is paused' })
  paused: boolean;
}

export class SearchHistoryListResponse {
  @ApiProperty({ type: [SearchHistoryEntryView], description: 'Newest first, at most 100, none older than 90 days' })
  data: SearchHistoryEntryView[];

  @ApiProperty({ type: SearchHistorySettingsView })
  settings: SearchHistorySettingsView;
}

export class SearchHistorySettingsEnvelope {
  @ApiProperty({ type: SearchHistorySettingsView })
  data: SearchHistorySettingsView;
}

export class SearchHistoryClearedResponse {
  @ApiProperty({ example: 'Search history cleared' })
  message: string;

  @ApiProperty({ type: 'integer', description: 'How many searches were removed', example: 12 })
  deleted: number;
}
