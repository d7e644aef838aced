import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** One OCR_GS line: its book folder, index within the book, gold and OCR text as stored (not trimmed, not NFC). */
export interface OcrGsLine {
  book: string;
  index: number;
  id: string;
  gt: string;
  ocr: string;
}

/** Every OCR_GS line under `root` (book folders `book_<Name>`, `NNNNNN.gt.txt` + `NNNNNN.png.rec.txt`), books and files sorted. */
export function loadOcrGsLines(root: string): OcrGsLine[] {
  const out: OcrGsLine[] = [];
  for (const folder of readdirSync(root)
    .filter((f) => f.startsWith('book_'))
    .sort()) {
    const files = readdirSync(path.join(root, folder))
      .filter((f) => f.endsWith('.gt.txt'))
      .sort();
    files.forEach((f, index) => {
      const id = f.replace('.gt.txt', '');
      out.push({
        book: folder.replace(/^book_/, ''),
        index,
        id,
        gt: readFileSync(path.join(root, folder, f), 'utf8'),
        ocr: readFileSync(path.join(root, folder, `${id}.png.rec.txt`), 'utf8'),
      });
    });
  }
  return out;
}
