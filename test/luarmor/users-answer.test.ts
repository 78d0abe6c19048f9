// GET /users' answer stream (contract §23, §28): the database walk stays one chunk ahead of the client, so a list of a
// million users holds one chunk in memory, not sixteen waiting ones that the collector has to move to its old
// generation (docs/benchmarks.md, fifth round's eighth session).
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { usersAnswer } from '../../src/modules/luarmor/users-answer.ts';

// About 100 characters each as JSON, so 650 or so fill a 64 KB chunk.
const user = (i: number) => ({ user_key: `key-${String(i).padStart(28, '0')}`, identifier: `hwid-${i}`, note: 'x'.repeat(30) });

/** 10,000 users (about sixteen chunks), counting how many the stream has taken. */
function source() {
  const taken = { count: 0 };
  async function* users() {
    for (let i = 0; i < 10_000; i++) {
      taken.count++;
      yield user(i);
    }
  }
  return { taken, users: users() };
}

describe('the user list answer', () => {
  it('takes no more than about two chunks of users while the client reads nothing', async () => {
    const { taken, users } = source();
    const stream = usersAnswer(users);
    // The stream fills itself in microtasks and nextTicks, which all run before the next turn of the event loop: by
    // then it has stopped at its high-water mark.
    stream.pause();
    stream.read(0);
    await nextTurn();
    expect(taken.count).toBeGreaterThan(0);
    expect(taken.count).toBeLessThan(1_400);
    stream.destroy();
  });

  it('writes every user, in order, as one JSON answer', async () => {
    const { users } = source();
    let text = '';
    for await (const chunk of usersAnswer(users)) text += chunk as string;
    const body = JSON.parse(text) as { success: boolean; message: string; users: Array<{ user_key: string }> };
    expect(body.success).toBe(true);
    expect(body.message).toBe('Success!');
    expect(body.users).toHaveLength(10_000);
    expect(body.users[9_999]).toEqual(user(9_999));
  });

  it('answers an empty list', async () => {
    async function* none() {}
    let text = '';
    for await (const chunk of usersAnswer(none())) text += chunk as string;
    expect(JSON.parse(text)).toEqual({ success: true, message: 'Success!', users: [] });
  });
});
