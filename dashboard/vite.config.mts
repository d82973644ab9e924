import { defineConfig } from 'vite';

// Built by `npm run build` (after `nest build`) into dashboard/dist, which the service serves at /dashboard. Outside the
// service's dist/, which `nest build` empties.
// `npx vite --config dashboard/vite.config.mts` serves it with live reload, calling a service on port 3000.
const service = process.env.DASHBOARD_API ?? 'http://localhost:3000';

export default defineConfig({
  root: import.meta.dirname,
  base: '/dashboard/',
  // React 19's JSX runtime, compiled by Vite's own transformer: no plugin needed.
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Everything ships with the service: no CDN, no external font or script.
    assetsInlineLimit: 0,
    rolldownOptions: {
      // TanStack's modules start with "use client" for server-rendering frameworks; a browser bundle has no use for it.
      onwarn(warning, warn) {
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
  server: {
    proxy: Object.fromEntries(['/api', '/v1'].map((path) => [path, { target: service, changeOrigin: true }])),
  },
});
