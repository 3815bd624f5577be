/** An integer in [min, max], drawn from `random`. */
export const between = (random: () => number, min: number, max: number): number =>
  min + Math.floor(random() * (max - min + 1));
