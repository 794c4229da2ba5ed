/**
 * Redis stream ids (`<ms>-<seq>`), the `id:` of every Reactor SSE event and the `Last-Event-ID` a
 * client resumes from. They order the stream: a larger id was appended later.
 */
export const STREAM_ID = /^\d{1,16}-\d{1,16}$/;

const parts = (id: string) => {
  const dash = id.indexOf('-');
  return [Number(id.slice(0, dash)), Number(id.slice(dash + 1))] as const;
};

/** Negative, zero or positive as `a` comes before, is, or comes after `b` in the stream. */
export function compareStreamIds(a: string, b: string): number {
  const [am, as] = parts(a);
  const [bm, bs] = parts(b);
  return am !== bm ? am - bm : as - bs;
}
