import { lazy } from 'react';
import { Navigate, createBrowserRouter, useParams } from 'react-router';
import { LoginPage } from './auth/LoginPage';
import { RegisterPage } from './auth/RegisterPage';
import { RequireSession } from './auth/RequireSession';
import { Shell } from './layout/Shell';
import { ServicesPage } from './services/ServicesPage';
import { Empty, Loading } from './components/states';
import { useServiceAccess } from './services/access';
import { visibleSections } from './layout/sections';

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

/** A service opens on its first section the caller's role may use (the overview for the owner and managers). */
function ServiceIndex() {
  const { serviceId } = useParams();
  const access = useServiceAccess(serviceId);
  if (!access.known) return <Loading label="Loading the service" />;
  const first = visibleSections(access)[0];
  if (!first) return <Empty title="Service not found">You are not a member of this service, or it no longer exists.</Empty>;
  return <Navigate to={`/services/${serviceId}/${first.slug}`} replace />;
}

export const router = createBrowserRouter([
  { path: '/login', element: <LoginPage /> },
  { path: '/register', element: <RegisterPage /> },
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
          // The link of an invite (contract §17: {base_url}/invite/<code>); signing in first comes back here.
          { path: 'invite/:code', element: <AcceptInvitePage /> },
          {
            path: 'services/:serviceId',
            children: [
              { index: true, element: <ServiceIndex /> },
              { path: 'overview', element: <OverviewPage /> },
              { path: 'keys', element: <KeysPage /> },
              { path: 'keyless', element: <KeylessPage /> },
              { path: 'blacklist', element: <BlacklistPage /> },
              { path: 'scripts', element: <ScriptsPage /> },
              { path: 'key-system', element: <KeySystemPage /> },
              { path: 'analytics', element: <AnalyticsPage /> },
              { path: 'audit-log', element: <AuditLogPage /> },
              { path: 'settings', element: <SettingsPage /> },
              { path: 'discord', element: <DiscordPage /> },
              { path: 'api-access', element: <ApiAccessPage /> },
              { path: 'short-links', element: <ShortLinksPage /> },
              { path: 'products', element: <ProductsPage /> },
              { path: 'variables', element: <VariablesPage /> },
              { path: 'event-endpoints', element: <EventEndpointsPage /> },
              { path: 'team', element: <TeamPage /> },
            ],
          },
          { path: '*', element: <Empty title="Page not found">Nothing lives at this address. Pick a service or a section.</Empty> },
        ],
      },
    ],
  },
]);
