import { expect } from 'chai';
import { C_AT, C_INVIS, C_LT, C_M, C_MARK, C_P, C_PAREN, C_PCT, C_PIPE, C_WS, CLASS } from '../../src/openiti/char-classes';
import { cleanLine } from '../../src/openiti/clean-line';
import { cleanLineBytes, FAST, GENERAL, SKIP } from '../../src/openiti/clean-line-bytes';
import { lineFacts } from '../../src/openiti/line-facts';
import { decodeUtf8 } from '../../src/openiti/utf8-decode';
import { mulberry32 } from '../../src/util/random';

/** What a cleaner leaves: the text and every fact the parser reads, or null for a skipped line. */
interface Cleaned {
  text: string;
  arabic: number;
  foreign: number;
  hasMarks: boolean;
  charLen: number;
  keyHash: string;
}

const facts = (text: string): Cleaned => ({
  text,
  arabic: lineFacts.arabic,
  foreign: lineFacts.foreign,
  hasMarks: lineFacts.hasMarks,
  charLen: lineFacts.charLen,
  keyHash: `${lineFacts.keyHash[1]}:${lineFacts.keyHash[0]}`,
});

/** The string path: the line decoded and cleaned by cleanLine (as the parser does for a GENERAL verdict). */
function viaString(line: string): Cleaned | null {
  const text = cleanLine(line, 0, line.length, true);
  return text === null ? null : facts(text);
}

/** The bytes path, with its verdict; the line sits between other bytes, as inside a read chunk. */
function viaBytes(line: string): { verdict: number; cleaned: Cleaned | null; inPlace: boolean } {
  const buf = Buffer.from(`(1) ms2 %~%\n${line}\n%~% PageV1P2`);
  const start = buf.indexOf(0x0a) + 1;
  const end = buf.lastIndexOf(0x0a);
  const verdict = cleanLineBytes(buf, start, end);
  if (verdict !== FAST) return { verdict, cleaned: null, inPlace: false };
  return { verdict, cleaned: facts(decodeUtf8(lineFacts.bytes, lineFacts.byteStart, lineFacts.byteEnd)), inPlace: lineFacts.bytes === buf };
}

/** The bytes path cleans `line` itself (no fallback to cleanLine) and gets what the string path gets. */
function expectCleanedOnBytes(line: string): void {
  const bytes = viaBytes(line);
  const expected = viaString(line);
  expect(bytes.verdict, `verdict for ${JSON.stringify(line)}`).to.equal(expected === null ? SKIP : FAST);
  expect(bytes.cleaned, JSON.stringify(line)).to.deep.equal(expected);
}

const V = 'العِلْمُ نُورٌ يَهْدِي بِهِ اللَّهُ مَنْ يَشَاءُ'; // harakat
const T = 'الـــعلم نور يهدي بـه الله من يشاء'; // tatweel
const W = 'قال الشيخ أبو محمد';

describe('openiti/clean-marked-bytes: markers cleaned on UTF-8 bytes give what cleanLine gives', () => {
  const constructs: Record<string, string[]> = {
    'hemistich separators (%~%, %)': [
      `# ${W} %~% ${T}`,
      `# % ${V} %~% ${T} % 3`,
      `%~% ${W} %~%`,
      `${W}%~%%${T}`,
      `${W} %~ ${T} ~% %%~% ${V}`,
      `~~${W} %~% ١٢`,
    ],
    'inline page markers': [
      `${W} PageV01P002 ${V}`,
      `${W} ${T} PageV01P002`,
      `${W}PageV01P002${T}`,
      `${W} PageV1P ${T} PageVP2 PageV12P3`,
      `${W} PageV01P002ms3 ${T}`, // the page marker's space makes a milestone of ms3
      `# PageV01P002 ms3 12`, // nothing left
      `${W} 12 PageV01P002`, // the trailing number, once the marker goes, lies before the marker
      `${W} ١٢ PageV01P002 `,
    ],
    milestones: [
      `~~وفي علوم ms001 العرب ${V}`,
      `${W} ms12a ${T} xms3 ${W} ms3_`,
      `ms12 ${W} العلمms3 ${T}`,
      `${W} ms3. ${T} (ms4) ms`,
      `${W} ms1ms2 ${T}`,
    ],
    footnotes: [
      `${W} (1) ${T}`,
      `${W} ( 12 ) ${T} (¬1) ${V} (١) (۳)`,
      `${W} (a) (Z) (ab) (1 2) ((3)) ${T}`,
      `${W} ( ¬ ١) ${T} (¬ 1) (1a) ( 2`,
      `${W} 3 (4)`, // the trailing number, once the footnote goes, lies before it
      `${W} (PageV1P1 2) ${T}`, // the page marker's space sits inside a footnote
      `${W} (١٢)١٣ ${T} (1) ٣`,
    ],
    "Qur'an verse prefixes": [`# 2|255| ${V}`, `2|255|${W}`, `# 2|x| ${W}`, `# PageV1P2 3|4| ${T}`, `${W} 2|3| ${T}`],
    'spaced dots and doubled spaces': [
      `${W} ... ${T}`,
      `${W} ... ... ${T} .... ${V}`,
      `${W}...${T}`,
      `${W}  ${T}   ${V}  12`,
      `${W} %...% ${T}`,
      `نص  ﷺ (1) نص ${W}`, // collapsing in place moves a three-byte character back by one byte
    ],
  };
  for (const [name, lines] of Object.entries(constructs)) {
    it(`${name}: cleaned on the bytes, the same text and facts`, () => {
      for (const line of lines) expectCleanedOnBytes(line);
      // the bytes path really cleaned something (a range of the input cannot hold the result)
      const changed = lines.filter((l) => viaString(l)?.text !== undefined && !viaBytes(l).inPlace);
      expect(changed.length, name).to.be.greaterThan(0);
    });
  }

  it('leaves tags, HTML, invisible characters, other whitespace and astral characters to cleanLine', () => {
    for (const line of [
      `${W} @QUR@039 (1) ${T}`,
      `${W} <b> (1) ${T}`,
      `${W}\u200d (1) ${T}`,
      `${W}\t(1) ${T}`,
      `${W}\u00a0(1) ${T}`,
      `${W} 😀 (1) ${T}`,
    ]) {
      expect(viaBytes(line).verdict, JSON.stringify(line)).to.equal(GENERAL);
    }
  });

  it('sees marks, and nothing else to act on, in U+0640–06FF (the flags scan skips decoding there)', () => {
    const acted = C_MARK | C_AT | C_LT | C_INVIS | C_WS | C_P | C_M | C_PAREN | C_PIPE | C_PCT;
    const marks = [0x640, 0x670];
    for (let c = 0x64b; c <= 0x65f; c++) marks.push(c);
    for (let c = 0x640; c <= 0x6ff; c++) expect(CLASS[c] & acted, c.toString(16)).to.equal(marks.includes(c) ? C_MARK : 0);
    for (const m of marks) expect(viaBytes(`(1) ${W} ${String.fromCharCode(m)}`).cleaned?.hasMarks, m.toString(16)).to.equal(true);
  });

  it('agrees with cleanLine on random mixtures of the markers', () => {
    const pieces = [
      ...['PageV1P2', 'PageV', 'P3', 'ms3', 'ms', 'm', '(1)', '( ¬٢ )', '(a)', '(', ')', '¬', '%~%', '%', '~', '~~'],
      ...[' ... ', '...', '..', '.', ' ', ' ', '  ', 'قال', 'العلم', V, T, 'ُ', 'ـ', 'ﷺ', '٣', '12', '7', '|', '2|3|', 'x', '_', '#'],
    ];
    const rnd = mulberry32(25);
    let onBytes = 0;
    for (let n = 0; n < 3000; n++) {
      let line = '';
      const k = 1 + Math.floor(rnd() * 20); // long enough for text before, between and after several markers
      for (let i = 0; i < k; i++) line += pieces[Math.floor(rnd() * pieces.length)];
      const bytes = viaBytes(line);
      if (bytes.verdict === GENERAL) continue;
      onBytes++;
      const expected = viaString(line);
      expect(bytes.verdict, JSON.stringify(line)).to.equal(expected === null ? SKIP : FAST);
      expect(bytes.cleaned, JSON.stringify(line)).to.deep.equal(expected);
    }
    expect(onBytes).to.be.greaterThan(2500);
  });
});
