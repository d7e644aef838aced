/**
 * Does a book score above its control? The floor is the higher of the controls' verbatim shares (the shuffled
 * lines, and the unpublished dataset when one is declared): short formulaic lines continue well in any text, and
 * an unpublished text of the same kind shows how well. With intervals on both sides, "above" is the book's lower
 * bound over the floor's upper bound; without (too few clusters), the book's share at least MARGIN over the floor's.
 */
import type { ContinuationFigures } from './figures';

/** The estimate-only rule's margin, used when either side has no interval. */
export const MARGIN = 0.1;

export interface Verdict {
  above_control: boolean;
  /** The control that set the floor: `shuffled` or the unpublished dataset's key. */
  floor: string | null;
  rule: 'intervals' | 'estimates' | 'no control';
}

export function verdict(book: ContinuationFigures, controls: { name: string; figures: ContinuationFigures }[]): Verdict {
  const usable = controls.filter((c) => c.figures.verbatim_share !== null);
  if (book.verbatim_share === null || usable.length === 0) return { above_control: false, floor: null, rule: 'no control' };
  const floor = usable.reduce((a, b) => (b.figures.verbatim_share! > a.figures.verbatim_share! ? b : a));
  if (book.verbatim_share_ci95 && floor.figures.verbatim_share_ci95)
    return { above_control: book.verbatim_share_ci95[0] > floor.figures.verbatim_share_ci95[1], floor: floor.name, rule: 'intervals' };
  return { above_control: book.verbatim_share - floor.figures.verbatim_share! >= MARGIN, floor: floor.name, rule: 'estimates' };
}
