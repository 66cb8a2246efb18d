/** pg's own conversion of a bound value to what it sends (its Query uses it; pg ships no types for it). */
declare module 'pg/lib/utils.js' {
  const utils: { prepareValue(value: unknown): string | Buffer | null };
  export default utils;
}
