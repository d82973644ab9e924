import { createTheme } from '@mantine/core';

/**
 * The dashboard's one theme. Colours, radius and type follow the library's defaults except where the
 * product has its own: a blue primary, compact controls for dense tables, the system font stack.
 */
export const theme = createTheme({
  primaryColor: 'blue',
  // Transitions (modals, menus, the navbar) follow the system's reduced-motion setting.
  respectReducedMotion: true,
  defaultRadius: 'sm',
  fontFamily:
    'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif, "Apple Color Emoji", "Segoe UI Emoji"',
  fontFamilyMonospace: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
});
