/**
 * The Discord page's checklist (contract §24.1): what `GET /keys/api/chat/status` read live from Discord, joined with
 * what the service has saved, as steps a seller who is not a developer can follow. One sentence per missing step;
 * the page adds the links and copy buttons the sentence names.
 */
export interface ChatStatus {
  /** ISO times (contract §1). */
  interactionsVerified: string | null;
  commandsSyncedAt: string | null;
  botInServer: boolean;
  canManageRoles: boolean;
  canPostIn: Record<string, boolean>;
  lastError: string | null;
}

export interface ChatSetup {
  applicationId: string | null;
  publicKeySet: boolean;
  botTokenSet: boolean;
  guild: { guildId: string; guildName: string } | null;
  roleId: string | null;
  logChannelId: string | null;
}

export type StepId = 'application' | 'server' | 'interactions' | 'commands' | 'bot' | 'roles' | 'log';

export interface Step {
  id: StepId;
  label: string;
  done: boolean;
  /** Optional steps (the log channel) read "not set up" instead of blocking the rest. */
  optional?: boolean;
  /** One sentence: what to do when not done, or what is true when done. */
  sentence: string;
}

/**
 * The bot's invite: the `bot` scope puts it in the server, `applications.commands` lets Keyward register the
 * commands. Permissions: View Channels (1024), Send Messages (2048), Embed Links (16384), Manage Roles (268435456).
 */
export const BOT_PERMISSIONS = 1024 + 2048 + 16384 + 268435456;
export const inviteUrl = (applicationId: string) =>
  `https://discord.com/oauth2/authorize?client_id=${encodeURIComponent(applicationId)}&scope=bot+applications.commands&permissions=${BOT_PERMISSIONS}`;

export const interactionsUrl = (origin: string, identifier: string) =>
  `${origin}/api/v1/chat/interactions/${encodeURIComponent(identifier)}`;

export const DISCORD_ID = /^[0-9]{17,20}$/;

const missing = (setup: ChatSetup) =>
  [!setup.applicationId && 'the application id', !setup.publicKeySet && 'the public key', !setup.botTokenSet && 'the bot token'].filter(
    (x): x is string => typeof x === 'string',
  );

const list = (items: string[]) => (items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`);

export function checklist(setup: ChatSetup, status: ChatStatus | undefined): Step[] {
  const gaps = missing(setup);
  const s = status;
  const when = (at: string) => new Date(at).toLocaleString();
  // In the order a seller works (docs/guide/discord.md): Discord registers commands only where the bot already is.
  return [
    {
      id: 'application',
      label: 'Application details saved',
      done: gaps.length === 0,
      sentence:
        gaps.length === 0
          ? 'The application id, public key and bot token are saved.'
          : `Paste ${list(gaps)} from the Discord developer portal into “Discord application” below and press Save application.`,
    },
    {
      id: 'interactions',
      label: 'Interactions verified',
      done: Boolean(s?.interactionsVerified),
      sentence: s?.interactionsVerified
        ? `Discord last reached Keyward on ${when(s.interactionsVerified)}.`
        : 'In the developer portal, open your application’s General Information, paste the Interactions Endpoint URL below into the field of that name and press Save Changes.',
    },
    {
      id: 'bot',
      label: 'Bot in the server',
      done: Boolean(s?.botInServer),
      sentence: s?.botInServer
        ? 'The bot is a member of your server.'
        : !setup.applicationId
          ? 'Save the application id first; then Invite the bot appears here.'
          : setup.guild
            ? 'Press Invite the bot, pick your server and press Authorize.'
            : 'Press Invite the bot, pick your server and press Authorize; this line turns done once the server is connected below.',
    },
    {
      id: 'server',
      label: 'Server connected',
      done: setup.guild !== null,
      sentence: setup.guild
        ? `Connected to “${setup.guild.guildName}”.`
        : 'Enter your server’s id and name under “Discord server” below and press Connect.',
    },
    {
      id: 'commands',
      label: 'Commands synced',
      done: Boolean(s?.commandsSyncedAt),
      sentence: s?.commandsSyncedAt
        ? `The commands were registered in your server on ${when(s.commandsSyncedAt)}.`
        : 'Press Sync commands once the application details are saved, the bot is in your server and the server is connected.',
    },
    {
      id: 'roles',
      label: 'Can manage roles',
      // Only the buyer role needs it: without one, a missing permission blocks nothing.
      optional: !setup.roleId && !s?.canManageRoles,
      done: Boolean(s?.canManageRoles),
      sentence: s?.canManageRoles
        ? 'The bot may give and take the buyer role.'
        : setup.roleId
          ? 'In Discord, open Server Settings → Roles, give the bot’s role the Manage Roles permission and drag it above the buyer role.'
          : 'Optional: needed only for the buyer role below; then give the bot’s role Manage Roles in Server Settings → Roles.',
    },
    {
      id: 'log',
      label: 'Can post in the log channel',
      optional: !setup.logChannelId,
      done: Boolean(setup.logChannelId && s?.canPostIn[setup.logChannelId]),
      sentence: !setup.logChannelId
        ? 'Optional: enter a staff log channel below to get notices of resets, bans and whitelists.'
        : s?.canPostIn[setup.logChannelId]
          ? 'The bot can post in the staff log channel.'
          : 'In Discord, open the log channel’s Edit Channel → Permissions, add the bot and allow View Channel, Send Messages and Embed Links.',
    },
  ];
}
