import { createRootRoute, createRoute, createRouter, Navigate, useParams } from '@tanstack/react-router';
import { App, NotFoundPage } from './App';
import { AuditLogPage } from './pages/AuditLogPage';
import { ContentPage } from './pages/ContentPage';
import { CustomerPage } from './pages/CustomerPage';
import { CustomersPage } from './pages/CustomersPage';
import { EventsPage } from './pages/EventsPage';
import { OverviewPage } from './pages/OverviewPage';
import { PaymentsPage } from './pages/PaymentsPage';
import { ProjectsPage } from './pages/ProjectsPage';
import { TeamPage } from './pages/TeamPage';
import { WebhooksPage } from './pages/WebhooksPage';

/**
 * The dashboard's routes, under /dashboard (Vite's base): real paths, so a link can be opened, shared
 * or reloaded. The service answers index.html for any of them (src/dashboard.ts). The root decides
 * between the login page and the signed-in shell; each route names the page it shows.
 */
const rootRoute = createRootRoute({ component: App, notFoundComponent: NotFoundPage });

const index = createRoute({ getParentRoute: () => rootRoute, path: '/', component: () => <Navigate to="/overview" replace /> });
// The root shows the forms (nothing to show once signed in: on to the overview).
const login = createRoute({ getParentRoute: () => rootRoute, path: '/login', component: () => <Navigate to="/overview" replace /> });
const signup = createRoute({
  getParentRoute: () => rootRoute,
  path: '/signup',
  validateSearch: (search: Record<string, unknown>): { invitation?: string } => (typeof search.invitation === 'string' ? { invitation: search.invitation } : {}),
  component: () => <Navigate to="/overview" replace />,
});
const overview = createRoute({ getParentRoute: () => rootRoute, path: '/overview', component: OverviewPage });
const customers = createRoute({ getParentRoute: () => rootRoute, path: '/customers', component: CustomersPage });
const customer = createRoute({ getParentRoute: () => rootRoute, path: '/customers/$customerId', component: CustomerRoute });
const payments = createRoute({ getParentRoute: () => rootRoute, path: '/payments', component: PaymentsPage });
const content = createRoute({ getParentRoute: () => rootRoute, path: '/content', component: ContentPage });
const events = createRoute({ getParentRoute: () => rootRoute, path: '/events', component: EventsPage });
const webhooks = createRoute({ getParentRoute: () => rootRoute, path: '/webhooks', component: WebhooksPage });
const team = createRoute({ getParentRoute: () => rootRoute, path: '/team', component: TeamPage });
const projects = createRoute({ getParentRoute: () => rootRoute, path: '/projects', component: ProjectsPage });
const audit = createRoute({ getParentRoute: () => rootRoute, path: '/audit', component: AuditLogPage });

function CustomerRoute() {
  const { customerId } = useParams({ from: '/customers/$customerId' });
  // Keyed: another customer starts the page afresh (its forms closed, its paging at the start).
  return <CustomerPage key={customerId} id={customerId} />;
}

const routeTree = rootRoute.addChildren([index, login, signup, overview, customers, customer, payments, content, events, webhooks, team, projects, audit]);

export const router = createRouter({
  routeTree,
  // `/dashboard/` from vite.config.mts, without the trailing slash.
  basepath: import.meta.env.BASE_URL.replace(/\/$/, ''),
  // The pages read their data themselves (TanStack Query): nothing to load before showing them.
  defaultPreload: false,
});

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
