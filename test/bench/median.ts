/** The middle value of `values` (the mean of the two middle ones for an even count). */
export const median = (values: number[]) => {
  const s = [...values].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
