import { Stack, Text } from '@mantine/core';
import { ErrorState, Loading, PageHeader } from '../components/states';
import { useServiceId } from '../services/useServiceId';
import { ApplicationForm } from './ApplicationForm';
import { BuyerPanelForm } from './BuyerPanelForm';
import { BuyerRoleSection } from './BuyerRoleSection';
import { LogChannelForm } from './LogChannelForm';
import { ServerSection } from './ServerSection';
import { SetupChecklist } from './SetupChecklist';
import { StaffCommands } from './StaffCommands';
import { useServiceInfo } from './queries';
import type { ChatSetup } from './steps';

/**
 * The Discord page (contract §24): everything a seller sets up to run the service from Discord, in the order they do
 * it, under a checklist read live from Discord. Owners and managers only: layout/SectionGate.tsx opens it for them alone.
 */
export default function DiscordPage() {
  const serviceId = useServiceId();
  const info = useServiceInfo(serviceId);
  if (info.isPending) return <Loading label="Loading the Discord settings" />;
  if (info.isError) return <ErrorState error={info.error} retry={() => void info.refetch()} />;
  const { settings, identifier } = info.data;
  const setup: ChatSetup = {
    applicationId: settings.chatApplicationId,
    publicKeySet: settings.chatInteractionsPublicKey !== null,
    botTokenSet: settings.chatBotToken !== null,
    guild: settings.chat,
    roleId: settings.chatRoleId,
    logChannelId: settings.chatLogChannelId,
  };
  const ready = Boolean(setup.applicationId && setup.publicKeySet && setup.botTokenSet && setup.guild);
  return (
    <>
      <PageHeader title="Discord" />
      <Stack>
        <Text size="sm">
          Buyers redeem keys, get the script and reset their HWID from buttons in your server; your team whitelists and bans with slash
          commands. Keyward answers Discord itself: there is no bot to host.
        </Text>
        <SetupChecklist serviceId={serviceId} identifier={identifier} setup={setup} />
        <ApplicationForm serviceId={serviceId} identifier={identifier} settings={settings} />
        <ServerSection serviceId={serviceId} settings={settings} />
        <BuyerPanelForm serviceId={serviceId} ready={ready} />
        <LogChannelForm serviceId={serviceId} logChannelId={settings.chatLogChannelId} />
        <BuyerRoleSection serviceId={serviceId} chatRoleId={settings.chatRoleId} />
        <StaffCommands />
      </Stack>
    </>
  );
}
