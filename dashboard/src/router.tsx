import {
  createRootRoute,
  createRoute,
  createRouter,
  lazyRouteComponent,
  Navigate,
  useParams,
} from '@tanstack/react-router';
import { lazy } from 'react';
import { App, NotFoundPage } from './App';
import { Spinner } from './ui';

/**
 * The dashboard's routes, under /dashboard (Vite's base): real paths, so a link can be opened, shared
 * or reloaded. The service answers index.html for any of them (src/dashboard.ts). The root decides
 * between the signed-out pages, the pages mailed links open, and the signed-in shell; each route
 * names the page it shows.
 */
const rootRoute = createRootRoute({ component: App, notFoundComponent: NotFoundPage });

const index = createRoute({
  getParentRoute: () => rootRoute,
  path: '/',
  component: () => <Navigate to="/overview" replace />,
});
// The root shows the forms (nothing to show once signed in: on to the overview).
const login = createRoute({
  getParentRoute: () => rootRoute,
  path: '/login',
  component: () => <Navigate to="/overview" replace />,
});
const signup = createRoute({
  getParentRoute: () => rootRoute,
  path: '/signup',
  validateSearch: (search: Record<string, unknown>): { invitation?: string } =>
    typeof search.invitation === 'string' ? { invitation: search.invitation } : {},
  component: () => <Navigate to="/overview" replace />,
});
const forgotPassword = createRoute({
  getParentRoute: () => rootRoute,
  path: '/forgot-password',
  component: () => <Navigate to="/overview" replace />,
});
// The pages the mails link to (`?token=`): the root shows them, signed in or not, without the shell.
const resetPassword = createRoute({ getParentRoute: () => rootRoute, path: '/reset-password', component: () => null });
const verifyEmail = createRoute({ getParentRoute: () => rootRoute, path: '/verify-email', component: () => null });
const invitation = createRoute({ getParentRoute: () => rootRoute, path: '/invitation', component: () => null });
const overview = createRoute({
  getParentRoute: () => rootRoute,
  path: '/overview',
  component: lazyRouteComponent(() => import('./pages/OverviewPage'), 'OverviewPage'),
});
const customers = createRoute({
  getParentRoute: () => rootRoute,
  path: '/customers',
  component: lazyRouteComponent(() => import('./pages/CustomersPage'), 'CustomersPage'),
});
const customer = createRoute({
  getParentRoute: () => rootRoute,
  path: '/customers/$customerId',
  component: CustomerRoute,
});
const payments = createRoute({
  getParentRoute: () => rootRoute,
  path: '/payments',
  component: lazyRouteComponent(() => import('./pages/PaymentsPage'), 'PaymentsPage'),
});
const payment = createRoute({
  getParentRoute: () => rootRoute,
  path: '/payments/$paymentId',
  component: PaymentRoute,
});
const content = createRoute({
  getParentRoute: () => rootRoute,
  path: '/content',
  component: lazyRouteComponent(() => import('./pages/ContentPage'), 'ContentPage'),
});
const contentChannel = createRoute({
  getParentRoute: () => rootRoute,
  path: '/content/channels/$channelId',
  component: ContentChannelRoute,
});
const contentProject = createRoute({
  getParentRoute: () => rootRoute,
  path: '/content/projects/$projectId',
  component: ContentProjectRoute,
});
// A share link's page, for people outside the account: App shows it without the session (SHARED_PREFIX).
const shared = createRoute({
  getParentRoute: () => rootRoute,
  path: '/shared/$projectId',
  component: lazyRouteComponent(() => import('./pages/SharedProjectPage'), 'SharedProjectPage'),
});
const projectAssets = createRoute({
  getParentRoute: () => rootRoute,
  path: '/content/projects/$projectId/assets',
  component: lazyRouteComponent(() => import('./pages/ProjectAssetsPage'), 'ProjectAssetsPage'),
});
const events = createRoute({
  getParentRoute: () => rootRoute,
  path: '/events',
  component: lazyRouteComponent(() => import('./pages/EventsPage'), 'EventsPage'),
});
const webhooks = createRoute({
  getParentRoute: () => rootRoute,
  path: '/webhooks',
  component: lazyRouteComponent(() => import('./pages/WebhooksPage'), 'WebhooksPage'),
});
const team = createRoute({
  getParentRoute: () => rootRoute,
  path: '/team',
  component: lazyRouteComponent(() => import('./pages/TeamPage'), 'TeamPage'),
});
const projects = createRoute({
  getParentRoute: () => rootRoute,
  path: '/projects',
  component: lazyRouteComponent(() => import('./pages/ProjectsPage'), 'ProjectsPage'),
});
const security = createRoute({
  getParentRoute: () => rootRoute,
  path: '/security',
  component: lazyRouteComponent(() => import('./pages/SecurityPage'), 'SecurityPage'),
});
const audit = createRoute({
  getParentRoute: () => rootRoute,
  path: '/audit',
  component: lazyRouteComponent(() => import('./pages/AuditLogPage'), 'AuditLogPage'),
});

const ChannelPage = lazy(() => import('./pages/ChannelPage').then((module) => ({ default: module.ChannelPage })));
const ContentProjectPage = lazy(() =>
  import('./pages/ContentProjectPage').then((module) => ({ default: module.ContentProjectPage })),
);
const PaymentPage = lazy(() => import('./pages/PaymentPage').then((module) => ({ default: module.PaymentPage })));
const CustomerPage = lazy(() => import('./pages/CustomerPage').then((module) => ({ default: module.CustomerPage })));

function CustomerRoute() {
  const { customerId } = useParams({ from: '/customers/$customerId' });
  // Keyed: another customer starts the page afresh (its forms closed, its paging at the start).
  return <CustomerPage key={customerId} id={customerId} />;
}

function PaymentRoute() {
  const { paymentId } = useParams({ from: '/payments/$paymentId' });
  return <PaymentPage key={paymentId} id={paymentId} />;
}

function ContentChannelRoute() {
  const { channelId } = useParams({ from: '/content/channels/$channelId' });
  return <ChannelPage key={channelId} channelId={channelId} />;
}

function ContentProjectRoute() {
  const { projectId } = useParams({ from: '/content/projects/$projectId' });
  return <ContentProjectPage key={projectId} projectId={projectId} />;
}

const routeTree = rootRoute.addChildren([
  index,
  login,
  signup,
  forgotPassword,
  resetPassword,
  verifyEmail,
  invitation,
  overview,
  customers,
  customer,
  payments,
  payment,
  content,
  contentChannel,
  contentProject,
  projectAssets,
  shared,
  events,
  webhooks,
  team,
  projects,
  audit,
  security,
]);

export const router = createRouter({
  routeTree,
  // `/dashboard/` from vite.config.mts, without the trailing slash.
  basepath: import.meta.env.BASE_URL.replace(/\/$/, ''),
  // The pages read their data themselves (TanStack Query): nothing to load before showing them but
  // their code, one chunk each, fetched when a link to them is hovered or focused.
  defaultPreload: 'intent',
  // Shown in the page's place while its chunk loads (each route is its own suspense boundary).
  defaultPendingComponent: () => <Spinner label="Loading the page" />,
});

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
