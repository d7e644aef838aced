import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FIXTURES } from '../helpers/shared-data';
import {
  cleanContentLine,
  codePointLength,
  countLetters,
  forEachLine,
  isArabicText,
  NoHeaderError,
  NotUtf8Error,
  parseOpenITIFile,
  parseOpenITIText,
} from '../../src/openiti/parse';
import { countArabicLetters, countLetters as countAnyLetters } from '../../src/text/arabic';

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
      expect(out.every((l) => countLetters(l).arabic >= 10)).to.equal(true);
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

  describe('character helpers', () => {
    it('counts Arabic letters, not digits, diacritics or punctuation', () => {
      expect(countLetters('العِلْمُ، ١٢٣ نور').arabic).to.equal(8);
      expect(countLetters('abc نص').foreign).to.equal(3);
    });

    it('uses the same letter definition as src/text/arabic (regex-based) on mixed text', () => {
      const samples = [
        ...plain(),
        ...markdown(),
        'ـــالعِلْمُ ٱلنُّورُ پژوهش ی ک ﷲ ﻻ abc ΑΒΓ 123 ١٢٣ ، ؛ ؟ \u0670\u06d6',
        readFileSync(PLAIN, 'utf8'),
      ];
      for (const t of samples) {
        const mine = countLetters(t);
        expect(mine.arabic, t.slice(0, 30)).to.equal(countArabicLetters(t));
        expect(mine.arabic + mine.foreign, t.slice(0, 30)).to.equal(countAnyLetters(t) - (t.match(/\u0640/g)?.length ?? 0));
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
      expect(() => parseOpenITIText('######OpenITI#\n#META# a :: b\n# قال الشيخ أبو محمد إن العلم\n')).to.throw(NoHeaderError, /never ends/);
      expect(() => parseOpenITIText('')).to.throw(NoHeaderError, /empty/);
    });

    it('accepts a BOM and CRLF line ends, or no header when requireHeader is false', () => {
      expect(parseOpenITIText('\ufeff######OpenITI# \r\n#META#Header#End#\r\n# قال الشيخ أبو محمد إن العلم زينة\r\n')).to.deep.equal(['قال الشيخ أبو محمد إن العلم زينة']);
      expect(parseOpenITIText('# قال الشيخ أبو محمد إن العلم زينة\n', { requireHeader: false })).to.deep.equal(['قال الشيخ أبو محمد إن العلم زينة']);
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
