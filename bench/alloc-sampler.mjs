// Loaded into the server by bench/alloc-profile.ts (node --import): V8's sampling heap profiler, counting every sampled
// allocation, the ones the collector has freed too. SIGUSR1 starts it (then writes ALLOC_PROFILE_OUT.started), SIGUSR2
// writes the profile to ALLOC_PROFILE_OUT. With ALLOC_SURVIVORS=1, only what outlived the young generation's
// collections (promoted to the old one, whether a later full collection freed it or not): what makes the old
// generation grow between full collections.
import { Session } from 'node:inspector';
import { renameSync, writeFileSync } from 'node:fs';

const session = new Session();
session.connect();
const post = (method, params) =>
  new Promise((resolve, reject) => session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))));
process.on('SIGUSR1', async () => {
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startSampling', {
    samplingInterval: 256,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: process.env.ALLOC_SURVIVORS !== '1',
  });
  writeFileSync(`${process.env.ALLOC_PROFILE_OUT}.started`, '');
});
process.on('SIGUSR2', async () => {
  const { profile } = await post('HeapProfiler.stopSampling');
  // Written whole under another name, then renamed: the bench reads it as soon as the name appears.
  writeFileSync(`${process.env.ALLOC_PROFILE_OUT}.part`, JSON.stringify(profile));
  renameSync(`${process.env.ALLOC_PROFILE_OUT}.part`, process.env.ALLOC_PROFILE_OUT);
});
