import { lazy, Suspense, type ComponentType } from 'react';
import { Navigate, createBrowserRouter, useParams } from 'react-router';
import { LoginPage } from './auth/LoginPage';
import { RegisterPage } from './auth/RegisterPage';
import { RequireSession } from './auth/RequireSession';
import { Shell } from './layout/Shell';
import { ServicesPage } from './services/ServicesPage';
import { Empty, ErrorState, Loading } from './components/states';
import { accessOf } from './services/access';
import { useServices } from './services/queries';
import { SECTIONS, visibleSections, type SectionSlug } from './layout/sections';
import { SectionGate } from './layout/SectionGate';

// Each page is its own chunk: the sign-in page does not ship the keys table.
const OverviewPage = lazy(() => import('./pages/OverviewPage'));
const KeysPage = lazy(() => import('./keys/KeysPage'));
const KeylessPage = lazy(() => import('./pages/KeylessPage'));
const BlacklistPage = lazy(() => import('./pages/BlacklistPage'));
const ScriptsPage = lazy(() => import('./pages/ScriptsPage'));
const KeySystemPage = lazy(() => import('./pages/KeySystemPage'));
const AnalyticsPage = lazy(() => import('./pages/AnalyticsPage'));
const AuditLogPage = lazy(() => import('./pages/AuditLogPage'));
const SettingsPage = lazy(() => import('./pages/SettingsPage'));
const DiscordPage = lazy(() => import('./discord/DiscordPage'));
const ApiAccessPage = lazy(() => import('./pages/ApiAccessPage'));
const ShortLinksPage = lazy(() => import('./pages/ShortLinksPage'));
const ProductsPage = lazy(() => import('./pages/ProductsPage'));
const EventEndpointsPage = lazy(() => import('./pages/EventEndpointsPage'));
const AccountPage = lazy(() => import('./pages/AccountPage'));
const StaffPage = lazy(() => import('./pages/StaffPage'));
const VariablesPage = lazy(() => import('./pages/VariablesPage'));
const TeamPage = lazy(() => import('./team/TeamPage'));
const AcceptInvitePage = lazy(() => import('./team/AcceptInvitePage'));

/** The page of each section (layout/sections.ts lists them, with the action a role needs to open one). */
const SECTION_PAGES: Record<SectionSlug, ComponentType> = {
  overview: OverviewPage,
  keys: KeysPage,
  keyless: KeylessPage,
  blacklist: BlacklistPage,
  scripts: ScriptsPage,
  'key-system': KeySystemPage,
  analytics: AnalyticsPage,
  'audit-log': AuditLogPage,
  settings: SettingsPage,
  discord: DiscordPage,
  'api-access': ApiAccessPage,
  'short-links': ShortLinksPage,
  products: ProductsPage,
  variables: VariablesPage,
  'event-endpoints': EventEndpointsPage,
  team: TeamPage,
};

/** A service opens on its first section the caller's role may use (the overview for the owner and managers). */
function ServiceIndex() {
  const { serviceId } = useParams();
  const services = useServices();
  if (services.isPending) return <Loading label="Loading the service" />;
  if (services.isError) return <ErrorState error={services.error} retry={() => void services.refetch()} />;
  const first = visibleSections(accessOf(services.data.find((s) => s.id === serviceId || s.identifier === serviceId)))[0];
  if (!first) return <Empty title="Service not found">You are not a member of this service, or it no longer exists.</Empty>;
  return <Navigate to={`/services/${serviceId}/${first.slug}`} replace />;
}

export const router = createBrowserRouter([
  { path: '/login', element: <LoginPage /> },
  { path: '/register', element: <RegisterPage /> },
  // The link of an invite (contract §17, §25: {base_url}/invite/<code>): open without an account, which it can create.
  {
    path: '/invite/:code',
    element: (
      <Suspense fallback={<Loading />}>
        <AcceptInvitePage />
      </Suspense>
    ),
  },
  {
    element: <RequireSession />,
    children: [
      {
        element: <Shell />,
        children: [
          { index: true, element: <Navigate to="/services" replace /> },
          { path: 'services', element: <ServicesPage /> },
          { path: 'account', element: <AccountPage /> },
          { path: 'staff', element: <StaffPage /> },
          {
            path: 'services/:serviceId',
            children: [
              { index: true, element: <ServiceIndex /> },
              // Each section opens only for a role that may use it (contract §25): one sentence otherwise.
              ...SECTIONS.map(({ slug }) => {
                const Page = SECTION_PAGES[slug];
                return {
                  path: slug,
                  element: (
                    <SectionGate slug={slug}>
                      <Page />
                    </SectionGate>
                  ),
                };
              }),
            ],
          },
          { path: '*', element: <Empty title="Page not found">Nothing lives at this address. Pick a service or a section.</Empty> },
        ],
      },
    ],
  },
]);
