import type { ServiceRow } from '../services/services.service.ts';

/** The buyer panel's message (contract §24.2): an embed and one row of five buttons with Keyward's custom ids. */

export interface PanelInput {
  channelId: string;
  title?: string;
  description?: string;
  color?: number;
}

export const PANEL_BUTTONS = [
  { custom_id: 'kw:redeem', label: 'Redeem key', style: 3 },
  { custom_id: 'kw:script', label: 'Get script', style: 1 },
  { custom_id: 'kw:reset', label: 'Reset HWID', style: 2 },
  { custom_id: 'kw:role', label: 'Get role', style: 2 },
  { custom_id: 'kw:me', label: 'My key', style: 2 },
] as const;

export function panelMessage(service: Pick<ServiceRow, 'name'>, input: PanelInput) {
  return {
    embeds: [
      {
        title: input.title ?? service.name,
        description:
          input.description ??
          'Press **Redeem key** to link the key you bought, then **Get script** to get your script. Only you see the answers.',
        color: input.color ?? 0x5865f2,
      },
    ],
    components: [{ type: 1, components: PANEL_BUTTONS.map((b) => ({ type: 2, ...b })) }],
    allowed_mentions: { parse: [] },
  };
}
