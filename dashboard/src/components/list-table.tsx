import { Box, Group, Pagination, ScrollArea, Table, Text, UnstyledButton, VisuallyHidden } from '@mantine/core';
import {
  columnSizingFeature,
  createPaginatedRowModel,
  createSortedRowModel,
  rowPaginationFeature,
  rowSortingFeature,
  sortFn_alphanumeric,
  sortFn_basic,
  sortFn_datetime,
  tableFeatures,
  useTable,
  type ColumnDef,
  type RowData,
} from '@tanstack/react-table';
import { useMemo, type ReactNode } from 'react';

/**
 * Every list of the dashboard is one of these: TanStack Table for the state (sorting, paging, column
 * sizes), Mantine's Table for the markup. The features are registered once here, so a page only
 * describes its columns.
 */
const features = tableFeatures({
  rowSortingFeature,
  rowPaginationFeature,
  columnSizingFeature,
  sortedRowModel: createSortedRowModel(),
  paginatedRowModel: createPaginatedRowModel(),
  sortFns: { alphanumeric: sortFn_alphanumeric, basic: sortFn_basic, datetime: sortFn_datetime },
});

export interface ListColumn<Row extends RowData> {
  /** Stable id: the sort state and the test selectors name it. */
  id: string;
  /** The header's words. With `hiddenHeader`, only a screen reader reads them (a column of row menus). */
  header: string;
  hiddenHeader?: boolean;
  cell: (row: Row) => ReactNode;
  /** What the column sorts by; a column without one cannot be sorted. */
  sortBy?: (row: Row) => string | number | Date | undefined;
  /** Width in pixels; the table is laid out fixed, so long values wrap inside their column. */
  width?: number;
  align?: 'left' | 'right';
  /** The cell names its row (a `th scope="row"`): screen readers read it with each cell of the row. */
  rowHeader?: boolean;
}

export interface ListTableProps<Row extends RowData> {
  /** For screen readers: what the rows are. */
  caption: string;
  rows: readonly Row[];
  columns: readonly ListColumn<Row>[];
  rowKey: (row: Row) => string;
  /** The rows are being read again: shown dimmed and announced busy. */
  busy?: boolean;
  /** Shown in place of the table when there is no row. */
  empty?: ReactNode;
  /** Page the rows here (rows the server already paged use `footer` for its pager instead). */
  pageSize?: number;
  footer?: ReactNode;
  initialSort?: { id: string; desc?: boolean };
  /** Extra attributes of a row, for example `data-testid` or a highlighted state. */
  rowProps?: (row: Row) => Record<string, string | undefined>;
}

export function ListTable<Row extends RowData>({
  caption,
  rows,
  columns,
  rowKey,
  busy,
  empty,
  pageSize,
  footer,
  initialSort,
  rowProps,
}: ListTableProps<Row>) {
  const definitions = useMemo<ColumnDef<typeof features, Row>[]>(
    () =>
      columns.map((column) => ({
        id: column.id,
        header: column.header,
        accessorFn: column.sortBy ? (row: Row) => normalise(column.sortBy!(row)) : () => '',
        enableSorting: Boolean(column.sortBy),
        sortFn: 'basic',
        sortUndefined: 'last',
        ...(column.width ? { size: column.width } : {}),
      })),
    [columns],
  );
  const byId = useMemo(() => new Map(columns.map((column) => [column.id, column])), [columns]);
  const data = useMemo(() => [...rows], [rows]);
  const table = useTable({
    features,
    columns: definitions,
    data,
    getRowId: (row: Row) => rowKey(row),
    initialState: {
      sorting: initialSort ? [{ id: initialSort.id, desc: initialSort.desc ?? false }] : [],
      pagination: { pageIndex: 0, pageSize: pageSize ?? Math.max(rows.length, 1) },
    },
    autoResetPageIndex: true,
    // Unpaged, every row shows: the initial page size would cut a list that grows (a refetch, "Load more").
    ...(pageSize ? {} : { state: { pagination: { pageIndex: 0, pageSize: Math.max(data.length, 1) } } }),
  });

  if (rows.length === 0 && empty) return <>{empty}</>;

  const pageCount = pageSize ? table.getPageCount() : 1;
  // Unpaged, every row shows, sorted: a page size taken from the first render would hide rows added later.
  const shownRows = pageSize ? table.getRowModel().rows : table.getPrePaginatedRowModel().rows;
  return (
    <Box aria-busy={busy || undefined} style={busy ? { opacity: 0.6 } : undefined}>
      <ScrollArea type="auto" offsetScrollbars>
        <Table striped highlightOnHover verticalSpacing="xs" layout="fixed" miw={600}>
          <caption className="visually-hidden">{caption}</caption>
          <Table.Thead>
            {table.getHeaderGroups().map((group) => (
              <Table.Tr key={group.id}>
                {group.headers.map((header) => {
                  const column = byId.get(header.column.id)!;
                  const sorted = header.column.getIsSorted();
                  const label = column.hiddenHeader ? <VisuallyHidden>{column.header}</VisuallyHidden> : column.header;
                  return (
                    <Table.Th
                      key={header.id}
                      scope="col"
                      style={{ width: column.width, textAlign: column.align }}
                      aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined}
                    >
                      {header.column.getCanSort() ? (
                        <UnstyledButton onClick={header.column.getToggleSortingHandler()} fw={600} fz="sm">
                          <Group gap={4} wrap="nowrap" component="span">
                            {label}
                            <Text span c="dimmed" fz="xs" aria-hidden="true">
                              {sorted === 'asc' ? '▲' : sorted === 'desc' ? '▼' : '↕'}
                            </Text>
                          </Group>
                        </UnstyledButton>
                      ) : (
                        label
                      )}
                    </Table.Th>
                  );
                })}
              </Table.Tr>
            ))}
          </Table.Thead>
          <Table.Tbody>
            {shownRows.map((row) => (
              <Table.Tr key={row.id} {...(rowProps?.(row.original) ?? {})}>
                {row.getAllCells().map((cell) => {
                  const column = byId.get(cell.column.id)!;
                  const style = { textAlign: column.align, overflowWrap: 'anywhere' } as const;
                  return column.rowHeader ? (
                    <Table.Th key={cell.id} scope="row" style={{ ...style, fontWeight: 'normal' }}>
                      {column.cell(row.original)}
                    </Table.Th>
                  ) : (
                    <Table.Td key={cell.id} style={style}>
                      {column.cell(row.original)}
                    </Table.Td>
                  );
                })}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
      {pageCount > 1 && (
        <Group justify="flex-end" mt="sm">
          <Pagination
            total={pageCount}
            value={table.state.pagination.pageIndex + 1}
            onChange={(page) => table.setPageIndex(page - 1)}
            size="sm"
            getControlProps={(control) => ({ 'aria-label': `${control} page` })}
          />
        </Group>
      )}
      {footer}
    </Box>
  );
}

/** Dates sort by time, text without regard to case. */
function normalise(value: string | number | Date | undefined): string | number | undefined {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'string') return value.toLocaleLowerCase();
  return value;
}
