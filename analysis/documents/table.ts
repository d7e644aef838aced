import type * as aq from 'arquero';

/** An Arquero table of scored lines. */
export type Table = ReturnType<typeof aq.from>;
