/** Discord's interaction answer shapes (values fixed by Discord) and how a sentence becomes one. */

export const InteractionType = { PING: 1, APPLICATION_COMMAND: 2, MESSAGE_COMPONENT: 3, MODAL_SUBMIT: 5 } as const;
export const ResponseType = { PONG: 1, CHANNEL_MESSAGE: 4, DEFERRED_CHANNEL_MESSAGE: 5, MODAL: 9 } as const;
/** Only the person who clicked sees the answer. */
export const EPHEMERAL = 64;
const MESSAGE_LIMIT = 2000;

export type MessageData = {
  content: string;
  flags: typeof EPHEMERAL;
  allowed_mentions: { parse: [] };
};

export type InteractionResponse =
  | { type: 1 }
  | { type: 4; data: MessageData }
  | { type: 5; data: { flags: typeof EPHEMERAL } }
  | { type: 9; data: Record<string, unknown> };

export const messageData = (content: string): MessageData => ({
  content: content.length > MESSAGE_LIMIT ? `${content.slice(0, MESSAGE_LIMIT - 1)}…` : content,
  flags: EPHEMERAL,
  // Mentions in an answer name people; they never ping anyone.
  allowed_mentions: { parse: [] },
});

export const reply = (content: string): InteractionResponse => ({ type: ResponseType.CHANNEL_MESSAGE, data: messageData(content) });
export const DEFERRED: InteractionResponse = { type: ResponseType.DEFERRED_CHANNEL_MESSAGE, data: { flags: EPHEMERAL } };

/** The Redeem key button's modal: one text input (its submit arrives as type 5 with custom id kw:redeem-modal). */
export const REDEEM_MODAL: InteractionResponse = {
  type: ResponseType.MODAL,
  data: {
    custom_id: 'kw:redeem-modal',
    title: 'Redeem key',
    components: [
      {
        type: 1,
        components: [
          {
            type: 4,
            custom_id: 'key',
            label: 'Your key',
            style: 1,
            min_length: 1,
            max_length: 64,
            required: true,
            placeholder: 'Paste the key you bought',
          },
        ],
      },
    ],
  },
};
