import { Anchor, createTheme, rem, type CSSVariablesResolver } from '@mantine/core';

/**
 * The dashboard's one theme. Colours, radius and type follow the library's defaults except where the
 * product has its own: a blue primary, compact controls for dense tables, the system font stack, and
 * the shades that keep WCAG AA contrast (4.5:1 for text) in both schemes: the filled primary and the
 * links one shade darker than the library's, dimmed text and error text darker in light and lighter
 * in dark, and links underlined (a link in a sentence is told apart by more than its colour).
 */
export const theme = createTheme({
  primaryColor: 'blue',
  primaryShade: { light: 8, dark: 8 },
  // Transitions (modals, menus, the navbar) follow the system's reduced-motion setting.
  respectReducedMotion: true,
  defaultRadius: 'sm',
  fontFamily:
    'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif, "Apple Color Emoji", "Segoe UI Emoji"',
  fontFamilyMonospace: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
  // Page titles a step smaller than the library's: the pages are dense tools, not documents.
  headings: { sizes: { h1: { fontSize: rem(28), lineHeight: '1.3' } } },
  components: {
    Anchor: Anchor.extend({ defaultProps: { underline: 'always' } }),
  },
});

/** The library's colour variables that fall short of AA contrast, replaced (MantineProvider's `cssVariablesResolver`). */
export const contrastVariables: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-error': 'var(--mantine-color-red-9)',
  },
  dark: {
    '--mantine-color-dimmed': 'var(--mantine-color-dark-1)',
    '--mantine-color-error': 'var(--mantine-color-red-4)',
  },
});
