/**
 * The slash commands Keyward registers in the bound server (contract §4, §24.3), in Discord's application command
 * shape. The buyer's three and the staff's seven; who may run a staff command is decided when it runs (the role
 * table), not by Discord's permissions, so a reseller who is no server admin still sees /whitelist.
 */

// Discord's option types.
const STRING = 3;
const INTEGER = 4;
const USER = 6;
const ROLE = 8;

interface Option {
  type: number;
  name: string;
  description: string;
  required?: boolean;
  min_value?: number;
  max_value?: number;
  max_length?: number;
}

const user = (description: string): Option => ({ type: USER, name: 'user', description, required: true });
const days = (max: number, required = false): Option => ({
  type: INTEGER,
  name: 'days',
  description: required ? 'How many days' : 'How many days (leave empty for lifetime)',
  required,
  min_value: 1,
  max_value: max,
});

export const COMMANDS = [
  {
    name: 'redeem',
    description: 'Link your key to your Discord account',
    options: [{ type: STRING, name: 'key', description: 'Your key', required: true, max_length: 64 }],
  },
  { name: 'script', description: 'Get your script with your key filled in' },
  { name: 'resethwid', description: 'Reset the device your key is bound to' },
  {
    name: 'whitelist',
    description: 'Staff: make a key for a user and link it',
    options: [user('Who gets the key'), days(3650), { type: STRING, name: 'note', description: 'A note on the key', max_length: 256 }],
  },
  {
    name: 'blacklist',
    description: 'Staff: ban every key of a user',
    options: [
      user('Who is banned'),
      { type: STRING, name: 'reason', description: 'Why (the buyer sees it)', max_length: 256 },
      { ...days(3650), description: 'Ban for how many days (leave empty for good)' },
    ],
  },
  { name: 'unblacklist', description: "Staff: lift the ban on a user's keys", options: [user('Whose keys')] },
  { name: 'user-info', description: "Staff: a user's keys", options: [user('Whose keys')] },
  { name: 'force-resethwid', description: "Staff: reset a user's HWIDs without the cooldown", options: [user('Whose keys')] },
  { name: 'compensate', description: 'Staff: add days to every key of the service', options: [days(365, true)] },
  {
    name: 'mass-whitelist',
    description: 'Staff: give a key to every member with a role who has none',
    options: [{ type: ROLE, name: 'role', description: 'Members holding this role', required: true }, days(3650)],
  },
].map((command) => ({ type: 1, ...command }));

export const COMMAND_NAMES = COMMANDS.map((c) => c.name);
