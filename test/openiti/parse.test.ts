import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FIXTURES } from '../helpers/shared-data';
import {
  cleanContentLine,
  codePointLength,
  forEachLine,
  forEachLineRange,
  isArabicText,
  letterCountsByScript,
  NoHeaderError,
  NotUtf8Error,
  OpenITILineParser,
  parseOpenITIFile,
  parseOpenITIText,
} from '../../src/openiti';
import { dedupKey } from '../../src/openiti';
import { hash53 } from '../../src/openiti/sampling';
import { countArabicLetters, countLetters } from '../../src/text/arabic';

const PLAIN = path.join(FIXTURES, 'openiti', 'sample_openiti_plain.txt');
const MARKDOWN = path.join(FIXTURES, 'openiti', 'sample_openiti_markdown.mARkdown');
const plain = () => parseOpenITIText(readFileSync(PLAIN, 'utf8'));
const markdown = () => parseOpenITIText(readFileSync(MARKDOWN, 'utf8'));
const H = '######OpenITI#\n#META# 000.SortField\t:: X\n#META#Header#End#\n';

describe('openiti/parse', () => {
  describe('parseOpenITIText on the plain fixture', () => {
    it('extracts the Arabic content lines in file order', () => {
      expect(plain()).to.deep.equal([
        'بسم الله الرحمن الرحيم',
        'قال أبو محمد عبد الله بن مسلم رحمه الله تعالى في أول كتابه',
        'أما بعد فإن العلم نور يهدي به الله من يشاء من عباده الصالحين',
        'ويرفع به أقواما ويضع به آخرين في الدنيا والآخرة',
        'وكان يقول إن الصبر مفتاح الفرج وإن الشكر قيد النعم',
        'ألا ليت شعري هل أبيتن ليلة بجنب الغضى أزجي القلاص النواجيا',
        'وقال الشاعر في ذلك كلاما حسنا يرويه الناس في المجالس والأسواق',
        'هذا سطر قصير جدا',
        'أما بعد فإن العلم نور يهدي به الله من يشاء من عباده الصالحين',
        'وحدثني أبي عن جدي أنه سمع الأعراب يتناشدون هذه الأبيات',
      ]);
    });

    it('strips the meta header', () => {
      const out = plain();
      expect(out.join('\n')).not.to.match(/META|SortField|كاتب الاختبار|كتاب الاختبار في الأدب/);
      expect(out.some((l) => l.includes('::'))).to.equal(false);
    });

    it('skips page markers, alone or inside a line', () => {
      const out = plain();
      expect(out.join('\n')).not.to.include('PageV');
      expect(out).to.include('ويرفع به أقواما ويضع به آخرين في الدنيا والآخرة'); // "... PageV01P002" at the end
      expect(out).to.include('وحدثني أبي عن جدي أنه سمع الأعراب يتناشدون هذه الأبيات'); // "~~PageV01P003 ..."
    });

    it('strips trailing verse numbers (ASCII and Arabic-Indic)', () => {
      const out = plain();
      expect(out).to.include('وكان يقول إن الصبر مفتاح الفرج وإن الشكر قيد النعم'); // "... 7"
      expect(out.at(-1)).to.equal('وحدثني أبي عن جدي أنه سمع الأعراب يتناشدون هذه الأبيات'); // "... ١٢"
      expect(out.join('\n')).not.to.match(/[0-9\u0660-\u0669]/);
    });

    it('handles poem lines (% separators, ~~ lines)', () => {
      expect(plain()).to.include('ألا ليت شعري هل أبيتن ليلة بجنب الغضى أزجي القلاص النواجيا');
      expect(plain().join('\n')).not.to.include('%');
    });

    it('skips lines with fewer than 10 Arabic letters and mostly-Latin lines', () => {
      const out = plain();
      expect(out).not.to.include('لا');
      expect(out.some((l) => /transliteration/.test(l))).to.equal(false);
      expect(out.every((l) => letterCountsByScript(l).arabic >= 10)).to.equal(true);
    });

    it('removes ms milestones and skips section headers', () => {
      const out = plain();
      expect(out).to.include('وقال الشاعر في ذلك كلاما حسنا يرويه الناس في المجالس والأسواق');
      expect(out.join('\n')).not.to.match(/ms\d|باب ذكر العلم|باب آخر|\|/);
    });
  });

  describe('parseOpenITIText on the .mARkdown fixture (real variants)', () => {
    it('joins hemistichs separated by %~%, " ... " and "# % … %"', () => {
      const out = markdown();
      expect(out[0]).to.equal('أما ترى ذا الفلك الدائر في السماء أبيت من هم به ساهرا');
      expect(out[1]).to.equal('وأبيض يستسقى الغمام بوجهه ثمال اليتامى عصمة للأرامل');
      expect(out[2]).to.equal('ألا بكرت عرسي توائم من لحى وأقرب بأحلام النساء من الردى');
    });

    it('keeps ~~ continuation lines as units, drops a lone continued verse number', () => {
      const out = markdown();
      expect(out).to.include('عن عبد الله بن مسعود قال قال رسول الله صلى الله عليه وسلم');
      expect(out).not.to.include('11');
    });

    it('removes footnote references and inline tags', () => {
      const out = markdown();
      expect(out).to.include('حدثنا محمد بن عبيد قال حدثنا الأعمش عن إبراهيم عن علقمة بن قيس');
      expect(out).to.include('قال الله جل وعز إن في خلق السماوات والأرض واختلاف الليل');
    });

    it('treats a Qur\'an verse "# surah|verse| text" as one unit without its prefix', () => {
      expect(markdown()).to.include('ذلك الكتاب لا ريب فيه هدى للمتقين الذين يؤمنون بالغيب');
    });

    it('skips ### | / ### || AUTO headers and #####ENDNOTES#', () => {
      const out = markdown();
      expect(out).to.have.length(7);
      expect(out.join('\n')).not.to.match(/كتاب الشعر|باب المديح|ENDNOTES|#/);
    });
  });

  describe('cleanContentLine', () => {
    const cases: Array<[string, string | null]> = [
      ['PageV01P005', null],
      ['# PageV01P005', null],
      ['### || AUTO باب', null],
      ['#META# 010.AuthorNAME\t:: x', null],
      ['# | مسند أبي بكر الصديق', null],
      ['#', null],
      ['', null],
      ['~~11', '11'],
      ['# %  قال %~% وقال % 3', 'قال وقال'],
      ['~~وفي علوم ms001 العرب', 'وفي علوم العرب'],
      ['# نص\u200d فيه (¬1) علامات @MATN@ <a href="x">رابط</a>', 'نص فيه علامات رابط'],
      ['بلا بادئة نص عربي', 'بلا بادئة نص عربي'],
      ['#بلا مسافة', 'بلا مسافة'],
      ['# كلمة\tو  كلمة   أخرى ٤٢ ', 'كلمة و كلمة أخرى'],
    ];
    for (const [input, expected] of cases) {
      it(`${JSON.stringify(input)} → ${JSON.stringify(expected)}`, () => {
        expect(cleanContentLine(input)).to.equal(expected);
      });
    }
  });

  describe('facts the parser finds while cleaning (char_len, dedup-key hash, marks)', () => {
    interface Facts {
      text: string;
      charLen: number;
      keyHash: number;
      hasMarks: boolean;
    }
    const facts = (p: OpenITILineParser, text: string): Facts => ({
      text,
      charLen: p.lastCharLen,
      keyHash: p.lastKeyHashHi * 2 ** 32 + p.lastKeyHashLo,
      hasMarks: p.lastHasMarks,
    });
    /** Each line through push() (its own string), requireHeader off. */
    const viaPush = (lines: string[]): Array<Facts | null> => {
      const p = new OpenITILineParser('<t>', { requireHeader: false, minArabicLetters: 1 });
      return lines.map((l) => {
        const t = p.push(l);
        return t === null ? null : facts(p, t);
      });
    };
    /** The same lines as ranges of one text, as forEachLineRange hands them over (neighbours visible). */
    const viaRanges = (lines: string[]): Array<Facts | null> => {
      const text = lines.join('\n');
      const p = new OpenITILineParser('<t>', { requireHeader: false, minArabicLetters: 1 });
      const out: Array<Facts | null> = [];
      let start = 0;
      for (const l of lines) {
        const t = p.pushRange(text, start, start + l.length);
        out.push(t === null ? null : facts(p, t));
        start += l.length + 1;
      }
      return out;
    };
    /** The same lines as UTF-8 bytes of one buffer, as forEachLineBytes hands them over. */
    const viaBytes = (lines: string[]): Array<Facts | null> => {
      const buf = Buffer.from(lines.join('\n'));
      const p = new OpenITILineParser('<t>', { requireHeader: false, minArabicLetters: 1 });
      const out: Array<Facts | null> = [];
      let start = 0;
      for (let i = 0; i < lines.length; i++) {
        const nl = buf.indexOf(0x0a, start);
        const end = nl === -1 ? buf.length : nl;
        out.push(p.pushBytes(buf, start, end) ? facts(p, p.lastText()) : null);
        start = end + 1;
      }
      return out;
    };
    const expectConsistent = (f: Facts | null, line: string) => {
      if (f === null) return;
      expect(f.charLen, line).to.equal(codePointLength(f.text));
      expect(f.keyHash, line).to.equal(hash53(dedupKey(f.text)));
      if (!f.hasMarks) expect(dedupKey(f.text), line).to.equal(f.text);
    };
    const V = 'العِلْمُ نُورٌ يَهْدِي بِهِ اللَّهُ مَنْ يَشَاءُ'; // harakat
    const T = 'الـــعلم نور يهدي بـه الله من يشاء'; // tatweel
    const crafted = [
      V,
      T,
      `# ${V} ١٢`, // trailing number after marks
      `~~${T} 7`,
      'هٰذا كتاب الصلاة وفيه أبواب كثيرة', // superscript alef (U+0670)
      'قال الشيخ أبو محمد 😀 إن العلم زينة 𝔸𝔹 الرجال', // astral: surrogate pairs
      'قال الشيخ أبو محمد \ud800 إن العلم زينة \udc00 الرجال', // lone surrogate halves count as one each
      'قال الشيخ أبو محمد إن العلم زينة 😀 12', // pair right before a stripped number
      'قال الشيخ أبو محمد إن العلم زينة  12', // doubled space in the number's margin: general path
      'قال الشيخ أبو محمد إن العلم زينة\u00a012', // no-break space before the number
      `قال الشيخ PageV01P002 أبو محمد إن ${V}`, // general path that changes the text
      'قال الشيخ (1) أبو محمد 😀 إن العلم زينة 𝔸 الرجال ٣', // ... with surrogate pairs
      `# نص\u200d فيه (¬1) علامات @MATN@ <a href="x">رابط</a> ${T}`,
      `# %  ${V} %~% ${T} % 3`,
      `${V} ... ${T}`,
      `~~وفي علوم ms001 العرب ${V}`,
      'قال (الشيخ) أبو محمد إن العلم زينة، مع Price 5', // general path that changes nothing
      '# 2|255| اللَّهُ لَا إِلَهَ إِلَّا هُوَ الْحَيُّ الْقَيُّومُ',
      'وقال الراوي..', // "..." split by a line break must not count as one
      '. وتابع الكلام بعد ذلك في المجلس',
      'وقال الشيخ في آخر السطر مسافة ',
      ' وبدأ السطر التالي بمسافة أيضا',
      // what the byte-level judgement must get right or leave to the general path
      'PageV01P005 قال الشيخ أبو محمد', // page marker line
      'PageV0123456789P1 قال الشيخ أبو محمد', // no marker within its first 16 characters: text
      'PageV1P قال الشيخ أبو محمد إن العلم',
      'Pقال الشيخ أبو محمد إن العلم زينة',
      '#META# قال الشيخ أبو محمد إن العلم زينة الرجال في المجالس',
      '##قال الشيخ أبو محمد إن العلم',
      '# | قال الشيخ أبو محمد',
      '# \u00a0| قال الشيخ أبو محمد', // "|" after a no-break space: still a title
      '\u00a0# قال الشيخ أبو محمد إن العلم زينة',
      '~~~ قال الشيخ أبو محمد إن العلم زينة',
      '#\tقال الشيخ أبو محمد إن العلم زينة',
      'قال الشيخ (أبو محمد) إن (a) العلم زينة',
      'قال الشيخ ( ¬ ١) إن العلم (x زينة (', // no footnote after all
      'قال الشيخ (¬١) إن العلم ( ¬2 ) زينة',
      'قال الشيخ أبو محمد إن العلم زينة ( 12',
      'قال الشيخ أبو محمد (۳) إن العلم زينة',
      'قال الشيخ msx أبو ms محمد ms3 العلم',
      'قال الشيخ @x أبو @QUR@ محمد إن العلم',
      'قال Page أبو PageV محمد إن العلم زينة',
      'قال الشيخ <b> أبو محمد إن العلم',
      'قال الشيخ أبو محمد إن العلم زينة\t12',
      'قال الشيخ\u200f أبو محمد إن العلم زينة',
      'قال الشيخ أبو محمد إن العلم زينة ۱۲',
      'قال الشيخ أبو محمد إن العلم زينة ١٢ ٣',
      'قال الشيخ أبو محمد إن العلم زينة.. والرجال',
      'قال الشيخ أبو محمد إن العلم زينة …',
    ];
    const fixtureLines = [...readFileSync(PLAIN, 'utf8').split('\n'), ...readFileSync(MARKDOWN, 'utf8').split('\n')];

    it('char length and hash53(dedupKey(text)) match recomputation on the cleaned text, on every path', () => {
      const all = [...crafted, ...fixtureLines];
      const got = viaPush(all);
      expect(got.filter((f) => f !== null).length).to.be.greaterThan(crafted.length);
      got.forEach((f, i) => expectConsistent(f, all[i]));
      expect(got.slice(0, crafted.indexOf('PageV01P005 قال الشيخ أبو محمد')).every((f) => f !== null)).to.equal(true);
      const astral = got[crafted.indexOf('قال الشيخ أبو محمد 😀 إن العلم زينة 𝔸𝔹 الرجال')]!;
      expect(astral.charLen).to.equal(astral.text.length - 3); // three astral characters, two UTF-16 units each
    });

    it('a vocalised line and its bare twin get the same key hash', () => {
      const [voc, bare] = viaPush([V, V.replace(/[\u064b-\u065f]/g, '')]);
      expect(voc!.hasMarks).to.equal(true);
      expect(bare!.hasMarks).to.equal(false);
      expect(voc!.keyHash).to.equal(bare!.keyHash);
      expect(voc!.text).not.to.equal(bare!.text);
    });

    it('pushBytes, which judges most lines on their UTF-8 bytes, gives what push gives', () => {
      const all = [...crafted, ...fixtureLines].filter((l) => Buffer.from(l).toString() === l); // UTF-8 has no lone surrogates
      const bytes = viaBytes(all);
      expect(bytes).to.deep.equal(viaPush(all));
      bytes.forEach((f, i) => expectConsistent(f, all[i]));
    });

    it('pushRange on lines inside one text gives what push gives on each line alone', () => {
      const all = [...crafted, ...fixtureLines];
      const ranged = viaRanges(all);
      expect(ranged).to.deep.equal(viaPush(all));
      ranged.forEach((f, i) => expectConsistent(f, all[i]));
    });

    it('forEachLineRange hands over the same lines as forEachLine (BOM, CRLF, no final newline)', async () => {
      const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'openiti-range-')), 'crlf');
      writeFileSync(file, `\ufeff${H}# ${V}\r\n\r\n~~${T}\r\nآخر`);
      const ranges: string[] = [];
      const lines: string[] = [];
      await forEachLineRange(file, (text, start, end) => ranges.push(text.slice(start, end)));
      await forEachLine(file, (l) => lines.push(l));
      expect(ranges).to.deep.equal(lines);
      expect(lines.slice(3)).to.deep.equal([`# ${V}`, '', `~~${T}`, 'آخر']);
      expect(lines[0]).to.equal('######OpenITI#');
    });
  });

  describe('character helpers', () => {
    it('counts Arabic letters, not digits, diacritics or punctuation', () => {
      expect(letterCountsByScript('العِلْمُ، ١٢٣ نور').arabic).to.equal(8);
      expect(letterCountsByScript('abc نص').foreign).to.equal(3);
    });

    it('uses the same letter definition as src/text/arabic (regex-based) on mixed text', () => {
      const samples = [
        ...plain(),
        ...markdown(),
        'ـــالعِلْمُ ٱلنُّورُ پژوهش ی ک ﷲ ﻻ abc ΑΒΓ 123 ١٢٣ ، ؛ ؟ \u0670\u06d6',
        readFileSync(PLAIN, 'utf8'),
      ];
      for (const t of samples) {
        const mine = letterCountsByScript(t);
        expect(mine.arabic, t.slice(0, 30)).to.equal(countArabicLetters(t));
        expect(mine.arabic + mine.foreign, t.slice(0, 30)).to.equal(countLetters(t) - (t.match(/\u0640/g)?.length ?? 0));
      }
    });

    it('isArabicText applies the 10-letter minimum and the foreign-letter ratio', () => {
      expect(isArabicText('كلمة كلمة كلم')).to.equal(true); // 11 letters
      expect(isArabicText('كلمة كلمة')).to.equal(false); // 8
      expect(isArabicText('كلمة كلمة كلم', { minArabicLetters: 12 })).to.equal(false);
      expect(isArabicText('كلمة كلمة كلمة كلمة abcdefghijklmnop')).to.equal(false);
      expect(isArabicText('كلمة كلمة كلمة كلمة abc')).to.equal(true);
    });

    it('codePointLength counts astral characters once', () => {
      expect(codePointLength('نص')).to.equal(2);
      expect(codePointLength('a😀b')).to.equal(3);
    });
  });

  describe('headers and files', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'openiti-parse-'));

    it('rejects text without the OpenITI magic line, and a header that never ends', () => {
      expect(() => parseOpenITIText('# قال الشيخ أبو محمد إن العلم زينة الرجال\n')).to.throw(NoHeaderError, /no OpenITI header/);
      expect(() => parseOpenITIText('######OpenITI#\n#META# a :: b\n# قال الشيخ أبو محمد إن العلم\n')).to.throw(
        NoHeaderError,
        /never ends/,
      );
      expect(() => parseOpenITIText('')).to.throw(NoHeaderError, /empty/);
    });

    it('accepts a BOM and CRLF line ends, or no header when requireHeader is false', () => {
      expect(parseOpenITIText('\ufeff######OpenITI# \r\n#META#Header#End#\r\n# قال الشيخ أبو محمد إن العلم زينة\r\n')).to.deep.equal([
        'قال الشيخ أبو محمد إن العلم زينة',
      ]);
      expect(parseOpenITIText('# قال الشيخ أبو محمد إن العلم زينة\n', { requireHeader: false })).to.deep.equal([
        'قال الشيخ أبو محمد إن العلم زينة',
      ]);
    });

    it('streams a file to the same lines as parsing it whole', async () => {
      for (const f of [PLAIN, MARKDOWN]) {
        const streamed: string[] = [];
        const st = await parseOpenITIFile(f, (t) => streamed.push(t));
        expect(streamed).to.deep.equal(parseOpenITIText(readFileSync(f, 'utf8')));
        expect(st.bytes).to.equal(readFileSync(f).length);
      }
    });

    it('splits lines correctly across 1 MB chunk boundaries and multi-byte characters', async () => {
      const line = 'قال الشيخ أبو محمد إن العلم زينة الرجال في المجالس والأسواق'; // 2-byte UTF-8 chars
      const n = 40_000; // ~4.4 MB: several chunks, boundaries fall inside characters
      const lines = Array.from({ length: n }, (_, i) => `# ${line} ${'ب'.repeat(i % 7)}`);
      const file = path.join(dir, 'big');
      writeFileSync(file, `${H}${lines.join('\n')}`); // no final newline
      const got: string[] = [];
      await forEachLine(file, (l) => got.push(l));
      expect(got.length).to.equal(3 + n);
      expect(got.slice(3)).to.deep.equal(lines);
    });

    it('handles a line longer than the read buffer', async () => {
      const long = '# ' + 'كلمة '.repeat(300_000); // 3 MB in one line
      const file = path.join(dir, 'long');
      writeFileSync(file, `${H}${long}\n# بعده سطر آخر فيه كلمات عربية كافية\n`);
      const got: string[] = [];
      await forEachLine(file, (l) => got.push(l));
      expect(got).to.have.length(5);
      expect(got[3]).to.equal(long);
    });

    it('reads files at the same time, and one after another with reused buffers, each to its own lines', async () => {
      // Read buffers are reused from file to file; reads that overlap must still never share one.
      const files = ['ا', 'ب', 'ت'].map((letter, k) => {
        const lines = Array.from({ length: 30_000 }, (_, i) => `# ${letter.repeat(20 + (i % 9))} ${k} ${i}`); // ~1.5 MB: two chunks
        const file = path.join(dir, `overlap-${k}`);
        writeFileSync(file, `${H}${lines.join('\n')}\n`);
        return { file, lines };
      });
      const read = async (file: string) => {
        const got: string[] = [];
        await forEachLine(file, (l) => got.push(l));
        return got.slice(3);
      };
      const together = await Promise.all([...files, ...files].map((f) => read(f.file)));
      together.forEach((got, i) => expect(got).to.deep.equal(files[i % files.length].lines));
      for (const f of files) expect(await read(f.file)).to.deep.equal(f.lines);
    });

    it('rejects invalid UTF-8 with NotUtf8Error naming the file and byte', async () => {
      const file = path.join(dir, 'latin1');
      writeFileSync(file, Buffer.concat([Buffer.from(H), Buffer.from([0x23, 0x20, 0xc7, 0xe1, 0xda, 0x0a])]));
      try {
        await parseOpenITIFile(file, () => {});
        expect.fail('should throw');
      } catch (err) {
        expect(err).to.be.instanceOf(NotUtf8Error);
        expect((err as NotUtf8Error).message).to.include(file);
        expect((err as NotUtf8Error).byteOffset).to.equal(H.length + 2);
      }
    });
  });
});
