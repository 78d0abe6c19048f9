import { notifications } from '@mantine/notifications';
import { messageOf } from '../api/client';

export const notifySuccess = (message: string) => notifications.show({ color: 'green', message });
export const notifyError = (error: unknown) => notifications.show({ color: 'red', title: 'Failed', message: messageOf(error) });
