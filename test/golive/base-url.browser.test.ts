import { createServer, type AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { seedAccount } from '../helpers/seed.ts';
import { signInWithPassword, useDashboard } from '../dashboard/browser.ts';

/** Contract §11: the dashboard warns, naming BASE_URL, when it is opened at an origin other than BASE_URL's. */
let port = 0;
beforeAll(async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
const d = useDashboard(() => ({ PORT: String(port), BASE_URL: `http://127.0.0.1:${port}` }));

describe('the BASE_URL warning', () => {
  it('is absent at BASE_URL and shown, naming BASE_URL, at another address of the same server', async () => {
    const account = await seedAccount(d.app().ctx);

    const right = await d.newPage();
    await signInWithPassword(right, `http://127.0.0.1:${port}/login?next=%2Fservices`, account.username, account.password);
    await right.getByRole('button', { name: 'New service' }).waitFor();
    expect(await right.getByRole('status', { name: 'BASE_URL is not this address' }).count()).toBe(0);

    const wrong = await d.newPage();
    await signInWithPassword(wrong, `http://localhost:${port}/login?next=%2Fservices`, account.username, account.password);
    await wrong.getByRole('button', { name: 'New service' }).waitFor();
    const warning = wrong.getByRole('status', { name: 'BASE_URL is not this address' });
    await warning.waitFor();
    const text = await warning.innerText();
    expect(text).toContain(`This dashboard is open at http://localhost:${port}, but the server's BASE_URL is http://127.0.0.1:${port}.`);
    expect(text).toContain('set BASE_URL to the address they use');
  });
});
