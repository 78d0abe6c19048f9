/**
 * Calls made during one turn of the event loop, answered together by one call of `run` (at most `maxSize` at a
 * time). Each HTTP request read in the same poll phase calls in before the batch runs, since `setImmediate` fires
 * after that phase; under load that is tens of calls per round trip, alone it adds no wait beyond the turn.
 * `run` answers the inputs in their order; when it throws, every call of the batch rejects with its error.
 */
export function batched<In, Out>(run: (inputs: In[]) => Promise<Out[]>, maxSize = 256): (input: In) => Promise<Out> {
  let pending: { input: In; resolve: (out: Out) => void; reject: (err: unknown) => void }[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    run(batch.map(({ input }) => input)).then(
      (outputs) => batch.forEach(({ resolve }, i) => resolve(outputs[i]!)),
      (err: unknown) => batch.forEach(({ reject }) => reject(err)),
    );
  };
  return (input) =>
    new Promise<Out>((resolve, reject) => {
      if (pending.length === 0) setImmediate(flush);
      pending.push({ input, resolve, reject });
      if (pending.length >= maxSize) flush();
    });
}
