import { Suspense, useEffect } from 'react';
import { Link, NavLink, Outlet, useLocation, useNavigate, useParams } from 'react-router';
import {
  ActionIcon,
  AppShell,
  Burger,
  Group,
  Menu,
  NavLink as MantineNavLink,
  ScrollArea,
  Select,
  Text,
  UnstyledButton,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useSession, useSignOut } from '../auth/session';
import { useServices } from '../services/queries';
import { Loading } from '../components/states';
import { sectionPath, visibleSections } from './sections';
import { accessOf, useServiceAccess } from '../services/access';
import { BaseUrlWarning } from './BaseUrlWarning';

function ThemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const scheme = useComputedColorScheme('light');
  const next = scheme === 'dark' ? 'light' : 'dark';
  return (
    <ActionIcon variant="default" size="lg" aria-label={`Switch to ${next} theme`} onClick={() => setColorScheme(next)}>
      <span aria-hidden="true">{scheme === 'dark' ? '☀' : '☾'}</span>
    </ActionIcon>
  );
}

function ServiceSwitcher() {
  const { serviceId } = useParams();
  const services = useServices();
  const navigate = useNavigate();
  const location = useLocation();
  const section = /^\/services\/[^/]+\/([^/]+)/.exec(location.pathname)?.[1] ?? 'keys';
  const data = (services.data ?? []).map((s) => ({ value: s.id, label: s.name }));
  const current = services.data?.find((s) => s.id === serviceId || s.identifier === serviceId)?.id ?? null;
  return (
    <Select
      aria-label="Service"
      placeholder={services.isLoading ? 'Loading…' : 'Choose a service'}
      data={data}
      value={current}
      onChange={(value) => {
        if (!value) return;
        // The same section on the other service when the role there allows it, else where that service opens.
        const allowed = visibleSections(accessOf(services.data?.find((s) => s.id === value))).some((v) => v.slug === section);
        navigate(allowed ? `/services/${value}/${section}` : `/services/${value}`);
      }}
      w={{ base: 150, sm: 240 }}
      size="sm"
      allowDeselect={false}
      searchable
      nothingFoundMessage="No service"
    />
  );
}

function AccountMenu() {
  const session = useSession();
  const signOut = useSignOut();
  const navigate = useNavigate();
  const account = session.data?.account;
  const staff = account?.role === 'admin' || account?.role === 'moderator';
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <UnstyledButton aria-label="Account menu" title={account?.username} px="xs" py={4} style={{ borderRadius: 4 }}>
          {/* Narrow screens keep the whole bar inside the viewport: a long name ends in an ellipsis (the menu shows it whole). */}
          <Text size="sm" fw={500} truncate maw={{ base: 84, sm: 160 }}>
            {account?.username ?? 'Account'}
          </Text>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>Signed in as {account?.username}</Menu.Label>
        <Menu.Item component={Link} to="/services">
          Services
        </Menu.Item>
        <Menu.Item component={Link} to="/account">
          Account
        </Menu.Item>
        {staff && (
          <Menu.Item component={Link} to="/staff">
            Staff
          </Menu.Item>
        )}
        <Menu.Divider />
        <Menu.Item
          color="red"
          onClick={async () => {
            await signOut();
            navigate('/login');
          }}
        >
          Sign out
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

/** The signed-in frame: top bar, a service's sections on the side, the page in the middle. */
export function Shell() {
  const [opened, { toggle, close }] = useDisclosure(false);
  const { serviceId } = useParams();
  const location = useLocation();
  useEffect(close, [location.pathname, close]);
  const access = useServiceAccess(serviceId);

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={serviceId ? { width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } } : undefined}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="sm" justify="space-between" wrap="nowrap" gap="xs">
          <Group gap="xs" wrap="nowrap">
            {serviceId && <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Sections" />}
            <Text component={Link} to="/services" fw={700} size="lg" visibleFrom="xs">
              Keyward
            </Text>
            <ServiceSwitcher />
          </Group>
          <Group gap="xs" wrap="nowrap">
            <ThemeToggle />
            <AccountMenu />
          </Group>
        </Group>
      </AppShell.Header>
      {serviceId && (
        <AppShell.Navbar p="xs" aria-label="Service sections">
          <ScrollArea>
            <nav>
              {visibleSections(access).map((section) => (
                <MantineNavLink
                  key={section.slug}
                  component={NavLink}
                  to={sectionPath(serviceId, section.slug)}
                  label={section.label}
                  active={location.pathname.startsWith(sectionPath(serviceId, section.slug))}
                />
              ))}
            </nav>
          </ScrollArea>
        </AppShell.Navbar>
      )}
      <AppShell.Main>
        <BaseUrlWarning />
        <Suspense fallback={<Loading />}>
          <Outlet />
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}
